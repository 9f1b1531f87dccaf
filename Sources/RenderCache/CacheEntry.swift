#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What one cache entry holds: named byte parts (e.g. print, sample, small) and the
/// caller's metadata (JSON), stored in one file with their size and SHA-256.
public struct CacheEntry: Sendable, Equatable {
    /// The outputs, by name, in order.
    public var parts: [(name: String, data: Data)]
    /// Opaque metadata for the caller (e.g. a card's sizes and print quality).
    public var metadata: Data

    public init(parts: [(name: String, data: Data)], metadata: Data = Data()) {
        self.parts = parts
        self.metadata = metadata
    }

    /// The part called `name`.
    public func part(_ name: String) -> Data? {
        parts.first { $0.name == name }?.data
    }

    public static func == (left: CacheEntry, right: CacheEntry) -> Bool {
        left.metadata == right.metadata && left.parts.map(\.name) == right.parts.map(\.name)
            && left.parts.map(\.data) == right.parts.map(\.data)
    }

    /// File layout: `CRDC1\n`, a 4-byte little-endian header length, the header JSON
    /// (part names and sizes, metadata size, SHA-256 of the payload), then the payload
    /// (metadata followed by the parts).
    static let magic = Array("CRDC1\n".utf8)

    struct Header: Codable {
        struct Part: Codable {
            var name: String
            var size: Int
        }
        var parts: [Part]
        var metadataSize: Int
        var sha256: String
    }

    /// The entry's bytes as stored.
    func encoded() throws -> [UInt8] {
        var payload = metadata
        for part in parts { payload.append(part.data) }
        let header = Header(
            parts: parts.map { Header.Part(name: $0.name, size: $0.data.count) }, metadataSize: metadata.count,
            sha256: ContentDigest.of(payload))
        let headerBytes = try JSONEncoder().encode(header)
        var file = Data(Self.magic)
        var length = UInt32(headerBytes.count).littleEndian
        withUnsafeBytes(of: &length) { file.append(contentsOf: $0) }
        file.append(headerBytes)
        file.append(payload)
        return [UInt8](file)
    }

    /// Reads stored bytes back; nil when anything is off (size, digest, layout): corrupt.
    static func decode(_ bytes: [UInt8]) -> CacheEntry? {
        guard bytes.count >= magic.count + 4, Array(bytes.prefix(magic.count)) == magic else { return nil }
        let lengthStart = magic.count
        let headerLength =
            Int(bytes[lengthStart]) | Int(bytes[lengthStart + 1]) << 8 | Int(bytes[lengthStart + 2]) << 16
            | Int(bytes[lengthStart + 3]) << 24
        let headerStart = lengthStart + 4
        guard headerLength > 0, headerStart + headerLength <= bytes.count,
            let header = try? JSONDecoder().decode(
                Header.self, from: Data(bytes[headerStart..<(headerStart + headerLength)]))
        else { return nil }
        // The payload is read where it lies (a frame's art is 10 MB: each copy costs).
        let payloadStart = headerStart + headerLength
        // Sizes come from a file another node may have written: each must be >= 0 and their
        // sum must not overflow, or a digest-matching object could trap every reader.
        var total = header.metadataSize
        guard total >= 0 else { return nil }
        for part in header.parts {
            guard part.size >= 0 else { return nil }
            let (sum, overflow) = total.addingReportingOverflow(part.size)
            guard !overflow else { return nil }
            total = sum
        }
        guard bytes.count - payloadStart == total,
            bytes.withUnsafeBytes({ ContentDigest.of(UnsafeRawBufferPointer(rebasing: $0[payloadStart...])) })
                == header.sha256
        else { return nil }
        var offset = payloadStart + header.metadataSize
        var parts: [(name: String, data: Data)] = []
        for part in header.parts {
            parts.append((part.name, Data(bytes[offset..<(offset + part.size)])))
            offset += part.size
        }
        return CacheEntry(parts: parts, metadata: Data(bytes[payloadStart..<(payloadStart + header.metadataSize)]))
    }
}
