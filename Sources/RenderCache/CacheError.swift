/// A cache operation failed; names the path and the cause.
public enum CacheError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A file could not be read.
    case unreadable(path: String, reason: String)
    /// The cache directory or a file in it could not be written.
    case unwritable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "\(path): cannot be read: \(reason)."
        case .unwritable(let path, let reason): return "\(path): cannot be written: \(reason)."
        }
    }
}
