import Synchronization

/// The cache as its users see it: entries (named byte parts with metadata) by key, in any
/// `CacheStore`, each checked on every read.
///
/// Every object holds the SHA-256 of its payload (see `CacheEntry`), so a truncated,
/// bit-flipped or foreign object is never served: it is removed, logged, counted and
/// reported as a miss. A store that cannot be read or written is logged and treated as
/// a miss or a skipped store: the work never fails for the cache.
public final class ContentCache: Sendable {
    /// Where the entries live.
    public let store: any CacheStore
    private let log: @Sendable (String) -> Void
    private let session = Mutex(CacheStatistics.Counts())

    /// - Parameters:
    ///   - store: where entries live.
    ///   - log: receives one line per corrupt entry removed and per store failure.
    public init(store: any CacheStore, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.store = store
        self.log = log
    }

    /// The entry stored under `key`, verified; nil on a miss, a corrupt entry (removed) or
    /// a store that cannot be read (logged).
    /// - Parameter nearestOnly: look in the nearest layer only (the local disk of a layered
    ///   store), never waiting for the shared one: what a server's I/O threads may do.
    public func entry(for key: CacheKey, nearestOnly: Bool = false) -> CacheEntry? {
        let store = nearestOnly ? (self.store as? LayeredStore)?.near ?? self.store : self.store
        // Twice at most: a corrupt copy in a near layer is removed and the shared one read.
        for _ in 0..<2 {
            let object: [UInt8]?
            do {
                object = try store.get(key)
            } catch {
                log("cache: warning: \(error) Working without the cache for this item.")
                count { $0.misses += 1 }
                return nil
            }
            guard let object else {
                count { $0.misses += 1 }
                return nil
            }
            guard let entry = CacheEntry.decode(object) else {
                try? store.removeCorrupt(key, object: object)
                log(
                    "cache: \(store.location): removed corrupt entry \(key) (size or digest did not match); it will be recomputed"
                )
                count { $0.corrupt += 1 }
                continue
            }
            store.touch(key)
            count { $0.hits += 1 }
            return entry
        }
        count { $0.misses += 1 }
        return nil
    }

    /// Stores `entry` under `key` unless it is there already.
    /// - Throws: `CacheError` when the store cannot be written.
    @discardableResult
    public func store(_ entry: CacheEntry, for key: CacheKey) throws(CacheError) -> PutOutcome {
        let bytes: [UInt8]
        do {
            bytes = try entry.encoded()
        } catch {
            throw .unwritable(path: store.location, reason: "the entry cannot be encoded: \(error)")
        }
        let outcome = try store.put(bytes, for: key)
        if outcome == .stored { count { $0.stores += 1 } }
        return outcome
    }

    /// Stores like `store(_:for:)`, but a failure (disk full, permissions, network) is logged
    /// instead of thrown: the result was computed, and the work must not fail for the cache.
    public func storeIfPossible(_ entry: CacheEntry, for key: CacheKey) {
        do {
            try store(entry, for: key)
        } catch {
            log("cache: warning: \(error) The result is not cached.")
        }
    }

    /// Reads every entry and removes the corrupt ones.
    /// - Returns: entries checked and corrupt ones removed.
    /// - Throws: `CacheError` when the store cannot be listed.
    public func verify() throws(CacheError) -> (checked: Int, removed: Int) {
        var removed = 0
        let objects = try store.list()
        for object in objects {
            let bytes = try store.get(object.key)
            guard let bytes, CacheEntry.decode(bytes) == nil else { continue }
            try store.remove(object.key)
            log("cache: \(store.location): removed corrupt entry \(object.key)")
            removed += 1
        }
        count { $0.corrupt += removed }
        return (objects.count, removed)
    }

    /// Counts a hit served from an entry's file without reading it through this cache
    /// (the server's sendfile of an entry it verified before).
    public func countHit() {
        count { $0.hits += 1 }
    }

    /// Counts evictions made by a collection (see `LeastRecentlyUsed`).
    public func countEvictions(_ removed: Int) {
        count { $0.evicted += removed }
    }

    /// This process's counts since the cache was opened or last taken.
    public var sessionCounts: CacheStatistics.Counts { session.withLock { $0 } }

    /// This process's counts, which restart from zero (to merge into a statistics file).
    public func takeSessionCounts() -> CacheStatistics.Counts {
        session.withLock { value in
            defer { value = CacheStatistics.Counts() }
            return value
        }
    }

    private func count(_ change: (inout CacheStatistics.Counts) -> Void) {
        session.withLock { counts in change(&counts) }
    }
}
