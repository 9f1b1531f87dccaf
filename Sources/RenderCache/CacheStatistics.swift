import FileUtilities

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A cache's counters since counting began, kept in `stats.json` in a local directory and
/// merged by every process under an exclusive `flock` of `lock` beside it.
public struct CacheStatistics: Sendable, Codable, Equatable {
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

        static func + (left: Counts, right: Counts) -> Counts {
            var sum = left
            sum.hits += right.hits
            sum.misses += right.misses
            sum.stores += right.stores
            sum.corrupt += right.corrupt
            sum.evicted += right.evicted
            return sum
        }
    }

    /// When counting started (seconds since 1970).
    public var since: Int
    /// The totals.
    public var counts: Counts

    /// Adds `counts` to `directory/stats.json` under the lock and returns the totals.
    @discardableResult
    public static func merge(_ counts: Counts, into directory: String) -> CacheStatistics {
        let lock = open(directory + "/lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        if lock >= 0 { flock(lock, LOCK_EX) }
        defer {
            if lock >= 0 {
                flock(lock, LOCK_UN)
                close(lock)
            }
        }
        var statistics = read(directory) ?? CacheStatistics(since: Int(time(nil)), counts: Counts())
        statistics.counts = statistics.counts + counts
        if let data = try? JSONEncoder().encode(statistics) {
            try? AtomicFile.write(data, to: directory + "/stats.json", durable: false)
        }
        return statistics
    }

    /// The directory's `stats.json`, if there is one.
    public static func read(_ directory: String) -> CacheStatistics? {
        FileManager.default.contents(atPath: directory + "/stats.json").flatMap {
            try? JSONDecoder().decode(CacheStatistics.self, from: $0)
        }
    }
}
