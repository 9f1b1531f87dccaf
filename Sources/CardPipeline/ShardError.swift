/// A `--shard` value that is not `K/N` with 0 <= K < N.
public enum ShardError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not two whole numbers separated by `/`.
    case malformed(String)
    /// K outside 0 ..< N, or N below 1.
    case outOfRange(index: Int, count: Int)

    public var description: String {
        switch self {
        case .malformed(let text):
            "--shard: expected K/N (this shard's index and the number of shards, e.g. 0/4); received '\(text)'."
        case .outOfRange(let index, let count) where count < 1:
            "--shard: the number of shards must be at least 1; received \(index)/\(count)."
        case .outOfRange(let index, let count):
            "--shard: the index must be from 0 to \(count - 1) for \(count) shards; received \(index)/\(count)."
        }
    }
}
