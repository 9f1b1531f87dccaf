/// Bytes by their key on the local disk, in one directory: a `DiskStore` (`objects/`), its
/// verified entries (`ContentCache`), a `DigestMemo` (`memo/`), statistics (`stats.json`), a
/// size bound kept by `LeastRecentlyUsed`, and the store every node shares, if any. The
/// commands and the thumbnail server open it as their render cache; the postcard service
/// keeps its photos, cards and print runs in one (unbounded).
public struct ContentStore: Sendable {
    /// The cache directory.
    public let directory: String
    /// The objects.
    public let store: DiskStore
    /// Input digests by file stamp.
    public let memo: DigestMemo
    /// Verified entries over the store, with this process's counts.
    public let entries: ContentCache
    /// The size bound.
    public let eviction: LeastRecentlyUsed
    /// The store shared by every node behind the disk, if any.
    public let shared: (any CacheStore)?
    private let log: @Sendable (String) -> Void

    /// Opens (creating if needed) the cache in `directory`.
    /// - Parameters:
    ///   - directory: where it lives.
    ///   - maxBytes: the size bound that `collectGarbage` keeps (default 2 GiB).
    ///   - shared: a store every node shares (an S3 bucket), behind the disk: read through
    ///     and written through (see `LayeredStore`); the disk keeps its bound.
    ///   - log: receives a line per corrupt entry removed and per store failure.
    /// - Throws: `CacheError.unwritable` when the directory cannot be created.
    ///   - maxMemoEntries: the most digest memos kept (see `DigestMemo`).
    public init(
        directory: String, maxBytes: Int = 2 << 30, shared: (any CacheStore)? = nil, maxMemoEntries: Int = 100_000,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(CacheError) {
        self.directory = directory
        let disk = try DiskStore(directory: directory)
        store = disk
        self.shared = shared
        memo = try DigestMemo(directory: directory + "/memo", maxEntries: maxMemoEntries)
        entries = ContentCache(store: shared.map { LayeredStore(near: disk, far: $0) } ?? disk, log: log)
        eviction = LeastRecentlyUsed(maxBytes: maxBytes)
        self.log = log
    }

    /// Removes least recently used entries until the cache fits its bound, and the oldest
    /// digest memos beyond theirs (`DigestMemo.prune`); a failure is logged and changes
    /// nothing.
    @discardableResult
    public func collectGarbage() -> LeastRecentlyUsed.Collection? {
        memo.prune()
        do {
            let collection = try eviction.collect(store)
            entries.countEvictions(collection.removed)
            return collection
        } catch {
            log("cache: warning: \(error) Nothing was collected.")
            return nil
        }
    }

    /// Adds this process's counts to `stats.json` and returns the totals.
    @discardableResult
    public func flushStatistics() -> CacheStatistics {
        CacheStatistics.merge(entries.takeSessionCounts(), into: directory)
    }
}
