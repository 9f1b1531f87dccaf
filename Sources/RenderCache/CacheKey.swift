#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The address of a cache entry: SHA-256 over what decides the output.
///
/// Key = SHA-256 of: the input's content digest, the recipe in canonical JSON (every field
/// of the resolved settings, keys sorted), and the versions of the programs that make the
/// bytes. The same photo under two names is one entry; one changed byte, setting or
/// version is another.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    /// 64 lower-case hex digits.
    public let hex: String

    /// Makes the key of `recipe` applied to an input whose content digest is `inputDigest`.
    /// - Throws: what encoding `recipe` throws.
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

    /// A key read back from its hex form (e.g. a file name); nil when it is not 64 hex digits.
    public init?(hex: String) {
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            return nil
        }
        self.hex = hex
    }

    public var description: String { hex }
}
