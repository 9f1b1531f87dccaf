import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// One input file found on the command line or under a directory.
public struct InputItem: Sendable, Equatable {
    /// The path to read.
    public let path: String
    /// The path relative to the input it was found under (a file argument: its name),
    /// used to mirror the input tree in the output directory.
    public let relativePath: String

    public init(path: String, relativePath: String) {
        self.path = path
        self.relativePath = relativePath
    }
}
