import Crypto

/// One of `count` shards of a batch, for running a batch on many nodes (a scheduler's array
/// job): an item belongs to shard `index` when the first 8 bytes of the SHA-256 of its path
/// relative to the input root, read as a big-endian integer, modulo `count`, equal `index`.
///
/// So the assignment depends on the item's own path only: it is the same for `render` and
/// `thumb`, for any listing order, on any machine and version, and adding items never moves
/// the others. The `count` shards together hold every item of the batch exactly once.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// This shard, 0 ..< `count`.
    public let index: Int
    /// How many shards the batch is cut into (at least 1).
    public let count: Int

    /// The whole batch as one shard: shard 0 of 1.
    public static let whole = Shard(checkedIndex: 0, count: 1)

    /// Shard `index` of `count`.
    /// - Throws: `ShardError.outOfRange` unless 0 <= index < count.
    public init(index: Int, count: Int) throws(ShardError) {
        guard count >= 1, (0..<count).contains(index) else {
            throw ShardError.outOfRange(index: index, count: count)
        }
        self.index = index
        self.count = count
    }

    /// For values the caller has already checked (0 <= index < count).
    private init(checkedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Parses `K/N`, e.g. `3/16` (N is always explicit).
    /// - Throws: `ShardError` naming the text and what is wrong with it.
    public init(parsing text: String) throws(ShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw ShardError.malformed(text)
        }
        try self.init(index: index, count: count)
    }

    /// The shard of `count` that the item at `relativePath` belongs to.
    public static func index(of relativePath: String, count: Int) -> Int {
        let digest = SHA256.hash(data: Array(relativePath.utf8))
        let prefix = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(prefix % UInt64(count))
    }

    /// Whether the item at `relativePath` (relative to the input root) is in this shard.
    public func contains(_ relativePath: String) -> Bool {
        Self.index(of: relativePath, count: count) == index
    }

    /// `K/N`.
    public var description: String { "\(index)/\(count)" }
}
