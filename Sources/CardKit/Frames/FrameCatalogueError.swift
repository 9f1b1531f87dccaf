import Synchronization
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A frame manifest or its art is unusable.
public struct FrameCatalogueError: Error, Sendable, CustomStringConvertible {
    /// The manifest or art file.
    public let manifest: String
    /// What is wrong, as the end of a sentence.
    public let problem: String

    public var description: String { "\(manifest): \(problem)." }
}
