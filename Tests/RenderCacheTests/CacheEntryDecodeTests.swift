import Foundation
import SystemPackage
import Testing

@testable import RenderCache

/// A cache object comes from a disk or a bucket that many nodes share: whatever its bytes,
/// decoding returns the entry or nil (corrupt), and never traps.
@Suite struct CacheEntryDecodeTests {
    /// An object whose header says what `header` says, over `payload`, with the payload's
    /// real SHA-256 (so only the sizes are lies).
    static func object(header: String, payload: [UInt8]) -> [UInt8] {
        let json = Array(header.replacingOccurrences(of: "DIGEST", with: ContentDigest.of(payload)).utf8)
        let length = UInt32(json.count)
        return CacheEntry.magic + [
            UInt8(length & 0xff), UInt8(length >> 8 & 0xff), UInt8(length >> 16 & 0xff), UInt8(length >> 24),
        ]
            + json + payload
    }

    @Test(arguments: [
        #"{"parts": [{"name": "a", "size": 8}], "metadataSize": -5, "sha256": "DIGEST"}"#,
        #"{"parts": [{"name": "a", "size": -2}], "metadataSize": 5, "sha256": "DIGEST"}"#,
        #"{"parts": [{"name": "a", "size": 9223372036854775807}], "metadataSize": 1, "sha256": "DIGEST"}"#,
        #"{"parts": [{"name": "a", "size": 9223372036854775807}, {"name": "b", "size": 9223372036854775807}, {"name": "c", "size": 5}], "metadataSize": 0, "sha256": "DIGEST"}"#,
    ])
    func liesAboutSizesAreCorrupt(header: String) {
        #expect(CacheEntry.decode(Self.object(header: header, payload: [1, 2, 3])) == nil)
    }

    /// 3,000 mutants of a real entry (bytes flipped, cut, inserted; header numbers changed):
    /// each decodes to nil or to a whole entry, and the run ends.
    @Test func mutantsNeverTrap() throws {
        let entry = CacheEntry(
            parts: [("print", Data(repeating: 7, count: 300)), ("small", Data([1, 2, 3]))], metadata: Data("{}".utf8))
        let good = try entry.encoded()
        #expect(CacheEntry.decode(good) == entry)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(1, bound)))
        }
        let numbers = ["-1", "-9223372036854775808", "9223372036854775807", "0", "4611686018427387904", "1e30", "3.5"]
        for _ in 0..<3000 {
            var bytes = good
            switch next(4) {
            case 0: bytes[next(bytes.count)] ^= UInt8(1 + next(255))
            case 1: bytes = Array(bytes.prefix(next(bytes.count)))
            case 2: bytes.insert(UInt8(next(256)), at: next(bytes.count))
            default:
                // A header number replaced, the digest still the payload's.
                var text = String(decoding: bytes, as: UTF8.self)
                let fields = ["\"size\":300", "\"size\":3", "\"metadataSize\":2"]
                let field = fields[next(fields.count)]
                let name = field.split(separator: ":")[0]
                text = text.replacingOccurrences(of: field, with: "\(name):\(numbers[next(numbers.count)])")
                bytes = Array(text.utf8)
                // Fix the header length so the JSON is read and only the numbers lie.
                if let start = text.range(of: "{")?.lowerBound,
                    let end = text.range(of: "\"}", options: .backwards)?.upperBound
                {
                    let json = Array(text[start..<end].utf8)
                    let payload = Array(good.suffix(305))
                    bytes = Self.object(header: String(decoding: json, as: UTF8.self), payload: payload)
                }
            }
            if let decoded = CacheEntry.decode(bytes) {
                #expect(decoded.parts.allSatisfy { !$0.name.isEmpty })
            }
        }
    }
}

/// `CacheEntry.layout(of:fileSize:)`: where a stored entry's parts lie, read from a real file's
/// header (what the server sends by sendfile); lies about sizes and cut files give nil.
@Suite struct CacheEntryLayoutTests {
    static func layout(of bytes: [UInt8]) throws -> CacheEntry.Layout? {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("layout-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let descriptor = try FileDescriptor.open(path, .readOnly)
        defer { try? descriptor.close() }
        return CacheEntry.layout(of: descriptor, fileSize: bytes.count)
    }

    @Test func thePartsAreWhereTheEntrySaysAndNothingElseIs() throws {
        let entry = CacheEntry(
            parts: [("image", Data([1, 2, 3, 4, 5])), ("other", Data(repeating: 9, count: 3))],
            metadata: Data(#"{"width":30}"#.utf8))
        let bytes = try entry.encoded()
        let layout = try #require(try Self.layout(of: bytes))
        #expect(layout.metadata == entry.metadata)
        let image = try #require(layout.part("image"))
        #expect(Array(bytes[image.offset..<image.offset + image.size]) == [1, 2, 3, 4, 5])
        let other = try #require(layout.part("other"))
        #expect(other.offset == image.offset + 5 && other.size == 3 && other.offset + 3 == bytes.count)
        #expect(try Self.layout(of: Array(bytes.dropLast())) == nil, "a cut file")
        #expect(try Self.layout(of: bytes + [0]) == nil, "a longer file")
        #expect(try Self.layout(of: Array(bytes.prefix(12))) == nil, "a cut header")
        #expect(try Self.layout(of: [UInt8](repeating: 0x41, count: 64)) == nil, "not an entry")
        let lie = CacheEntryDecodeTests.object(
            header: #"{"parts": [{"name": "a", "size": 9223372036854775807}], "metadataSize": 1, "sha256": "DIGEST"}"#,
            payload: [1, 2, 3])
        #expect(try Self.layout(of: lie) == nil, "sizes that do not add up")
    }
}
