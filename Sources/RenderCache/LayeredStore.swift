/// A fast store in front of a shared one: the local disk over an object store every node
/// uses. Reads try the near store first and copy what the far store had into it
/// (read-through); writes go to the far store, the shared truth, then to the near one
/// (write-through). The near store keeps its own size bound; the far store's objects are
/// evicted by its own rules (an S3 lifecycle rule).
public struct LayeredStore: CacheStore {
    /// The local store (a `DiskStore`).
    public let near: any CacheStore
    /// The shared store (an `S3Store`).
    public let far: any CacheStore

    public init(near: any CacheStore, far: any CacheStore) {
        self.near = near
        self.far = far
    }

    public var location: String { "\(near.location) over \(far.location)" }

    public func get(_ key: CacheKey) throws(CacheError) -> [UInt8]? {
        if let object = try? near.get(key) { return object }
        guard let object = try far.get(key) else { return nil }
        _ = try? near.put(object, for: key)
        return object
    }

    public func put(_ object: [UInt8], for key: CacheKey) throws(CacheError) -> PutOutcome {
        let outcome = try far.put(object, for: key)
        _ = try? near.put(object, for: key)
        return outcome
    }

    public func touch(_ key: CacheKey) {
        near.touch(key)
    }

    /// Removes the object from both stores (a corrupt object must not be served again by
    /// either).
    public func remove(_ key: CacheKey) throws(CacheError) {
        try? near.remove(key)
        try far.remove(key)
    }

    /// The near store's objects (what its size bound is kept on).
    public func list() throws(CacheError) -> [StoredObject] {
        try near.list()
    }
}
