/// The eviction policy of a size-bounded store: least recently used objects go first.
///
/// For the local disk; an object store bounds itself with its own lifecycle rules.
public struct LeastRecentlyUsed: Sendable {
    /// The size bound in bytes.
    public let maxBytes: Int

    public init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    /// What a collection did.
    public struct Collection: Sendable, Equatable {
        /// Objects left and their bytes.
        public var entries: Int
        public var bytes: Int
        /// Objects removed (least recently used first) and their bytes.
        public var removed: Int
        public var removedBytes: Int
    }

    /// Removes the least recently used objects of `store` until it holds at most `maxBytes`.
    /// - Throws: `CacheError` when the store cannot be listed.
    @discardableResult
    public func collect(_ store: some CacheStore) throws(CacheError) -> Collection {
        var objects = try store.list()
        var total = objects.reduce(0) { $0 + $1.size }
        var collection = Collection(entries: objects.count, bytes: total, removed: 0, removedBytes: 0)
        guard total > maxBytes else { return collection }
        objects.sort { $0.lastUsed < $1.lastUsed }
        for object in objects where total > maxBytes {
            guard (try? store.remove(object.key)) != nil else { continue }
            total -= object.size
            collection.removed += 1
            collection.removedBytes += object.size
        }
        collection.entries -= collection.removed
        collection.bytes = total
        return collection
    }
}
