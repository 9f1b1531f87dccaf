import SystemPackage
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The cache's counters, kept in `stats.json` since the file was created.
public struct Statistics: Sendable, Codable, Equatable {
    /// Counts of cache events.
    public struct Counts: Sendable, Codable, Equatable {
        public var hits = 0
        public var misses = 0
        public var stores = 0
        public var corrupt = 0
        public var evicted = 0

        public init() {}

        /// Hits over lookups, 0 when there were none.
        public var hitRate: Double {
            hits + misses == 0 ? 0 : Double(hits) / Double(hits + misses)
        }
    }

    /// When counting started (seconds since 1970).
    public var since: Int
    /// The totals.
    public var counts: Counts

    /// Adds `counts` to the directory's `stats.json` under an exclusive lock.
    static func merge(_ counts: Counts, into directory: String) -> Statistics {
        let path = FilePath(directory).appending("stats.json").string
        let lock = open(FilePath(directory).appending("lock").string, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        if lock >= 0 { flock(lock, LOCK_EX) }
        defer {
            if lock >= 0 {
                flock(lock, LOCK_UN)
                close(lock)
            }
        }
        var statistics = read(directory) ?? Statistics(since: Int(time(nil)), counts: Counts())
        statistics.counts.hits += counts.hits
        statistics.counts.misses += counts.misses
        statistics.counts.stores += counts.stores
        statistics.counts.corrupt += counts.corrupt
        statistics.counts.evicted += counts.evicted
        if let data = try? JSONEncoder().encode(statistics) {
            try? AtomicFile.write(data, to: path, durable: false)
        }
        return statistics
    }

    /// The directory's `stats.json`, if there is one.
    public static func read(_ directory: String) -> Statistics? {
        let path = FilePath(directory).appending("stats.json").string
        return FileManager.default.contents(atPath: path).flatMap {
            try? JSONDecoder().decode(Statistics.self, from: $0)
        }
    }
}
