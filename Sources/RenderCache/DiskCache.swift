import Synchronization
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

/// A content-addressed disk cache shared by threads and processes.
///
/// Layout under the directory:
/// - `objects/ab/cd/<key>`: one entry per key (see `CacheEntry` for the file format),
///   written to `tmp/` and renamed in, so a reader sees a whole entry or none; every read
///   checks size and SHA-256, and a corrupt entry is removed, logged and reported as a miss.
/// - `memo/<device>-<inode>`: input digests, valid while size and modification time match.
/// - `tmp/<pid>-…`: files being written; left-overs of dead processes are removed on open.
/// - `stats.json`: hits, misses, stores, corrupt entries and evictions since it was
///   created, merged by every process under `flock(lock)`.
///
/// Least-recently-used order is kept in the entries' modification times, which a hit sets
/// to now (`utimes`): it survives restarts and does not depend on `atime` or `noatime`.
/// Concurrency: writes are atomic renames of identical content, reads verify, so several
/// processes at worst render the same thing twice.
public final class DiskCache: Sendable {
    /// The cache directory.
    public let directory: String
    /// The size bound in bytes that `collectGarbage` enforces (default 2 GiB).
    public let maxBytes: Int
    private let log: @Sendable (String) -> Void
    private let session = Mutex(Statistics.Counts())
    private let sequence = Atomic<Int>(0)

    /// Opens (creating if needed) the cache at `directory` and removes temporary files left
    /// by processes that died while writing.
    /// - Parameters:
    ///   - directory: where the cache lives.
    ///   - maxBytes: the size bound.
    ///   - log: receives one line per corrupt entry removed and per clean-up.
    /// - Throws: `CacheError.unwritable` when the directory cannot be created.
    public init(directory: String, maxBytes: Int = 2 << 30, log: @escaping @Sendable (String) -> Void = { _ in }) throws
    {
        self.directory = directory
        self.maxBytes = maxBytes
        self.log = log
        for sub in ["objects", "memo", "tmp"] {
            let path = FilePath(directory).appending(sub).string
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw CacheError.unwritable(path: path, reason: "\(error)")
            }
        }
        removeDeadTemporaries()
    }

    /// The default location: `$XDG_CACHE_HOME/cardrender`, else `~/.cache/cardrender`.
    public static var defaultDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return FilePath(xdg).appending("cardrender").string
        }
        let home = environment["HOME"] ?? "/tmp"
        return FilePath(home).appending(".cache").appending("cardrender").string
    }

    // MARK: Entries

    /// The entry stored under `key`, verified; nil on a miss or a corrupt entry (removed).
    public func entry(for key: CacheKey) -> CacheEntry? {
        let path = objectPath(key)
        guard let file = FileManager.default.contents(atPath: path) else {
            count { $0.misses += 1 }
            return nil
        }
        guard let entry = CacheEntry.decode(file) else {
            unlink(path)
            log("cache: removed corrupt entry \(key) (size or digest did not match); it will be recomputed")
            count {
                $0.corrupt += 1
                $0.misses += 1
            }
            return nil
        }
        utimes(path, nil)  // most recently used now
        count { $0.hits += 1 }
        return entry
    }

    /// Stores `entry` under `key`, atomically (a concurrent identical store is harmless).
    /// - Throws: `CacheError.unwritable`.
    public func store(_ entry: CacheEntry, for key: CacheKey) throws {
        let path = objectPath(key)
        let shard = FilePath(path).removingLastComponent().string
        do {
            try FileManager.default.createDirectory(atPath: shard, withIntermediateDirectories: true)
            try writeAtomically(entry.encoded(), to: path)
        } catch let error as CacheError {
            throw error
        } catch {
            throw CacheError.unwritable(path: path, reason: "\(error)")
        }
        count { $0.stores += 1 }
    }

    /// Stores `entry` like `store(_:for:)`, but a failure (disk full, permissions) is logged
    /// instead of thrown: the result was computed, and the work must not fail for the cache.
    public func storeIfPossible(_ entry: CacheEntry, for key: CacheKey) {
        do {
            try store(entry, for: key)
        } catch {
            log("cache: warning: \(error) The result is not cached.")
        }
    }

    /// Where the entry of `key` lives.
    public func objectPath(_ key: CacheKey) -> String {
        let hex = key.hex
        let first = String(hex.prefix(2))
        let second = String(hex.dropFirst(2).prefix(2))
        return FilePath(directory).appending("objects").appending(first).appending(second).appending(hex).string
    }

    // MARK: Input digests

    /// The SHA-256 of the file at `path`, from the memo while its device, inode, size and
    /// modification time are unchanged, computed (and memoised) otherwise.
    /// - Throws: `CacheError.unreadable` naming the file.
    public func digest(ofFile path: String) throws(CacheError) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        let memo = FilePath(directory).appending("memo").appending("\(info.st_dev)-\(info.st_ino)").string
        let stamp = "\(info.st_size) \(info.st_mtim.tv_sec) \(info.st_mtim.tv_nsec)"
        if let data = FileManager.default.contents(atPath: memo) {
            let parts = String(decoding: data, as: UTF8.self).split(separator: "\n")
            if parts.count == 2, parts[0] == stamp, parts[1].count == 64 { return String(parts[1]) }
        }
        let digest = try ContentDigest.ofFile(path)
        try? writeAtomically(Data("\(stamp)\n\(digest)".utf8), to: memo)
        return digest
    }

    // MARK: Size bound

    /// What a collection did.
    public struct Collection: Sendable, Equatable {
        /// Entries left and their bytes.
        public var entries: Int
        public var bytes: Int
        /// Entries removed (least recently used first) and their bytes.
        public var removed: Int
        public var removedBytes: Int
    }

    /// Removes the least recently used entries until the cache holds at most `limit` bytes
    /// (default `maxBytes`).
    @discardableResult
    public func collectGarbage(limit: Int? = nil) -> Collection {
        let bound = limit ?? maxBytes
        var files = listEntries()
        var total = files.reduce(0) { $0 + $1.size }
        var collection = Collection(entries: files.count, bytes: total, removed: 0, removedBytes: 0)
        guard total > bound else { return collection }
        files.sort { ($0.used.tv_sec, $0.used.tv_nsec) < ($1.used.tv_sec, $1.used.tv_nsec) }
        for file in files where total > bound {
            if unlink(file.path) == 0 {
                total -= file.size
                collection.removed += 1
                collection.removedBytes += file.size
            }
        }
        collection.entries -= collection.removed
        collection.bytes = total
        count { $0.evicted += collection.removed }
        return collection
    }

    /// Checks every entry; removes the corrupt ones. Returns (entries checked, corrupt removed).
    public func verify() -> (checked: Int, removed: Int) {
        var removed = 0
        let files = listEntries()
        for file in files {
            guard let data = FileManager.default.contents(atPath: file.path), CacheEntry.decode(data) != nil else {
                unlink(file.path)
                log("cache: removed corrupt entry \(file.path)")
                removed += 1
                continue
            }
        }
        count { $0.corrupt += removed }
        return (files.count, removed)
    }

    /// Entry files with their size and last use.
    func listEntries() -> [(path: String, size: Int, used: timespec)] {
        var found: [(path: String, size: Int, used: timespec)] = []
        let objects = FilePath(directory).appending("objects")
        let manager = FileManager.default
        for first in (try? manager.contentsOfDirectory(atPath: objects.string)) ?? [] {
            let firstPath = objects.appending(first)
            for second in (try? manager.contentsOfDirectory(atPath: firstPath.string)) ?? [] {
                let secondPath = firstPath.appending(second)
                for name in (try? manager.contentsOfDirectory(atPath: secondPath.string)) ?? [] {
                    let path = secondPath.appending(name).string
                    var info = stat()
                    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
                    found.append((path, Int(info.st_size), info.st_mtim))
                }
            }
        }
        return found
    }

    // MARK: Statistics

    /// This process's counts since the cache was opened.
    public var sessionCounts: Statistics.Counts { session.withLock { $0 } }

    /// Adds this process's counts to `stats.json` (under an exclusive `flock`) and returns
    /// the totals; the session counts restart from zero.
    @discardableResult
    public func flushStatistics() -> Statistics {
        let counts = session.withLock { value -> Statistics.Counts in
            defer { value = Statistics.Counts() }
            return value
        }
        return Statistics.merge(counts, into: directory)
    }

    private func count(_ change: (inout Statistics.Counts) -> Void) {
        session.withLock { counts in change(&counts) }
    }

    // MARK: Files

    /// Writes `data` to `tmp/<pid>-<n>` and renames it to `path` (same file system).
    private func writeAtomically(_ data: Data, to path: String) throws(CacheError) {
        let temporary = FilePath(directory).appending("tmp")
            .appending("\(getpid())-\(sequence.wrappingAdd(1, ordering: .relaxed).newValue)").string
        do {
            try AtomicFile.write(data, to: temporary, durable: false)
        } catch {
            throw .unwritable(path: path, reason: error.reason)
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .unwritable(path: path, reason: reason)
        }
    }

    /// Removes `tmp/` files of processes that no longer run (killed while writing) and any
    /// older than an hour (process ids get reused).
    private func removeDeadTemporaries() {
        let tmp = FilePath(directory).appending("tmp")
        let now = time(nil)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: tmp.string)) ?? [] {
            let path = tmp.appending(name).string
            let owner = name.split(separator: "-").first.flatMap { Int32($0) }
            var info = stat()
            let old = stat(path, &info) == 0 && now - info.st_mtim.tv_sec > 3600
            let dead = owner.map { kill($0, 0) != 0 && errno == ESRCH } ?? true
            if (dead && owner != getpid()) || old {
                if unlink(path) == 0 { log("cache: removed left-over temporary file \(name)") }
            }
        }
    }
}
