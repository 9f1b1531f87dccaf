/// A fast store in front of a shared one: the local disk over an object store every node
/// uses. Reads try the near store first and copy what the far store had into it
/// (read-through); writes go to the near store first, then to the far one as best effort
/// (write-through): while the far store is down the node still keeps its work, and a batch
/// run again after an outage finds it. A corrupt near copy is removed from the near store
/// only (`removeCorrupt`): the shared object other nodes read is not touched for one node's
/// bad disk. The near store keeps its own size bound; the far store's objects are evicted
/// by its own rules (an S3 lifecycle rule).
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

    /// Stores in the near store (best effort: a full local disk must not lose the shared
    /// copy), then in the far one.
    /// - Returns: the far store's outcome.
    /// - Throws: the far store's `CacheError` when it failed; the near copy is kept.
    public func put(_ object: [UInt8], for key: CacheKey) throws(CacheError) -> PutOutcome {
        _ = try? near.put(object, for: key)
        return try far.put(object, for: key)
    }

    public func touch(_ key: CacheKey) {
        near.touch(key)
    }

    /// Removes the object from both stores (evicted everywhere).
    public func remove(_ key: CacheKey) throws(CacheError) {
        try? near.remove(key)
        try far.remove(key)
    }

    /// Removes `object`, which a `get` just returned and which failed its check, from each
    /// store that holds those very bytes: a near copy rotted on this node's disk goes and the
    /// good shared object stays for the other nodes; a corrupt shared object (copied to the
    /// near store by the read) goes from both. Only this rare path reads the far store again.
    public func removeCorrupt(_ key: CacheKey, object: [UInt8]) throws(CacheError) {
        let nearHeldIt = (try? near.get(key)) == object
        if nearHeldIt { try near.remove(key) }
        if !nearHeldIt || (try? far.get(key)) == object { try far.remove(key) }
    }

    /// The near store's objects (what its size bound is kept on).
    public func list() throws(CacheError) -> [StoredObject] {
        try near.list()
    }
}
