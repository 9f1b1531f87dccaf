#if canImport(Glibc)
    import Glibc
#endif

/// The root directory given to the server cannot be served.
public struct RootDirectoryError: Error, Sendable, CustomStringConvertible {
    /// The directory as given.
    public let directory: String
    /// Why.
    public let reason: String

    public var description: String { "\(directory): cannot be served: \(reason)." }
}
