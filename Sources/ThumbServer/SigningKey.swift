import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A secret for signing thumbnail URLs (HMAC-SHA256).
public struct SigningKey: Sendable {
    let key: SymmetricKey

    /// The shortest key accepted, in bytes.
    public static let minimumBytes = 16

    /// A key from raw bytes.
    /// - Throws: `SigningKeyError` when shorter than `minimumBytes`.
    public init(bytes: some ContiguousBytes & Collection) throws(SigningKeyError) {
        guard bytes.count >= Self.minimumBytes else {
            throw SigningKeyError(source: "the key", reason: "it has \(bytes.count) bytes; at least 16 are needed")
        }
        key = SymmetricKey(data: bytes)
    }

    /// The key held in a file: its bytes, without trailing whitespace (so `openssl rand -hex 32 > key` works).
    /// - Throws: `SigningKeyError` naming the file when it cannot be read or is too short.
    public init(contentsOfFile path: String) throws(SigningKeyError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SigningKeyError(source: path, reason: "cannot be read")
        }
        var bytes = [UInt8](data)
        while let last = bytes.last, [9, 10, 13, 32].contains(last) { bytes.removeLast() }
        do {
            try self.init(bytes: bytes)
        } catch {
            throw SigningKeyError(source: path, reason: error.reason)
        }
    }
}
