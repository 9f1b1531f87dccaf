import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A signing key that cannot be used.
public struct SigningKeyError: Error, Sendable, CustomStringConvertible {
    /// The file (or "the key").
    public let source: String
    /// Why.
    public let reason: String

    public var description: String { "\(source): not a usable signing key: \(reason)." }
}
