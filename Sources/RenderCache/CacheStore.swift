/// Where cache objects live: bytes under a key, each whole or absent.
///
/// The contract is the one an object store gives (S3's `PutObject` with `If-None-Match: *`
/// is an implementation of `put`): no rename, no partial object, no lock. A `get` may be
/// slow (a network round trip), so callers ask once per item. Integrity is checked above
/// the store (`ContentCache` verifies every object it reads), so a store need not trust
/// its medium. Calls block: make them from worker threads, never from an event loop.
public protocol CacheStore: Sendable {
    /// Where the objects are, for messages (a directory, a bucket URL).
    var location: String { get }

    /// The object stored under `key`, or nil when there is none.
    /// - Throws: `CacheError` when the store cannot be read (not for a miss).
    func get(_ key: CacheKey) throws(CacheError) -> [UInt8]?

    /// Stores `object` under `key` unless an object is already there; whole or not at all.
    /// - Returns: `.stored`, or `.alreadyPresent` when another writer stored it first (for a
    ///   content-addressed key that is the same bytes: a success).
    /// - Throws: `CacheError` when the store cannot be written.
    func put(_ object: [UInt8], for key: CacheKey) throws(CacheError) -> PutOutcome

    /// Marks the object as used now (least-recently-used order); best effort.
    func touch(_ key: CacheKey)

    /// Removes the object under `key` (corrupt or evicted); removing a missing one is no error.
    /// - Throws: `CacheError` when the store cannot be written.
    func remove(_ key: CacheKey) throws(CacheError)

    /// Removes `object`, just returned by `get(key)` and found corrupt, from where it came
    /// from (a layered store: that layer only).
    /// - Throws: `CacheError` when the store cannot be written.
    func removeCorrupt(_ key: CacheKey, object: [UInt8]) throws(CacheError)

    /// Every object with its size and last use.
    /// - Throws: `CacheError` when the store cannot be listed.
    func list() throws(CacheError) -> [StoredObject]
}

extension CacheStore {
    /// A single store: the object is removed.
    public func removeCorrupt(_ key: CacheKey, object: [UInt8]) throws(CacheError) {
        try remove(key)
    }
}
