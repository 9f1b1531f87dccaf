/// One object of a store, as listed.
public struct StoredObject: Sendable, Equatable {
    /// Its key.
    public var key: CacheKey
    /// Its size in bytes.
    public var size: Int
    /// When it was last stored or used, in nanoseconds since 1970.
    public var lastUsed: Int64

    public init(key: CacheKey, size: Int, lastUsed: Int64) {
        self.key = key
        self.size = size
        self.lastUsed = lastUsed
    }
}
