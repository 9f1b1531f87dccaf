#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The address of a cache entry: SHA-256 over what decides the output.
///
/// Key = SHA-256 of: the input's content digest, the recipe in canonical JSON (defaults
/// filled in by the caller, keys sorted), the cardrender version and the libvips version.
/// The same photo under two names is one entry; one changed byte, setting or version is
/// another.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    /// 64 lower-case hex digits.
    public let hex: String

    /// Makes the key of `recipe` applied to an input whose content digest is `inputDigest`.
    public init(inputDigest: String, recipe: some Encodable, versions: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let canonical = try encoder.encode(recipe)
        var material = Data()
        material.append(contentsOf: Array("cardrender-cache-key-v1\n\(inputDigest)\n".utf8))
        material.append(canonical)
        material.append(contentsOf: Array("\n\(versions)\n".utf8))
        hex = ContentDigest.of(material)
    }

    init(hex: String) {
        self.hex = hex
    }

    public var description: String { hex }
}
