import FastPath
import Foundation
import ImageCore
import PhotoSources
import TestSupport
import Testing
import VipsKit

@testable import CardKit

/// One rule for the Orientation tag on both pixel paths, whatever type and byte order the
/// writer used: SHORT as the standard says, LONG as some encoders write it.
@Suite(.libvips) struct ExifOrientationTests {
    /// A JPEG of `path` with an APP1 Exif segment holding only Orientation = `value`,
    /// stored with `type` (3 SHORT, 4 LONG) in big- or little-endian order.
    static func withOrientation(_ jpeg: Data, value: UInt32, type: UInt16, bigEndian: Bool) -> Data {
        func bytes16(_ v: UInt16) -> [UInt8] {
            bigEndian ? [UInt8(v >> 8), UInt8(v & 0xff)] : [UInt8(v & 0xff), UInt8(v >> 8)]
        }
        func bytes32(_ v: UInt32) -> [UInt8] {
            let big = [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)]
            return bigEndian ? big : big.reversed()
        }
        var tiff: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        tiff += bytes16(42) + bytes32(8) + bytes16(1)
        tiff += bytes16(0x0112) + bytes16(type) + bytes32(1)
        tiff += type == 3 ? bytes16(UInt16(value)) + [0, 0] : bytes32(value)
        tiff += bytes32(0)
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = UInt16(payload.count + 2)
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xff)] + payload
        var data = Data(jpeg.prefix(2))
        data.append(contentsOf: segment)
        data.append(jpeg.dropFirst(2))
        return data
    }

    @Test(arguments: [(UInt16(3), true), (3, false), (4, true), (4, false)])
    func bothPathsTurnThePhotoAlike(type: UInt16, bigEndian: Bool) throws {
        let directory = try Fixtures.scratchDirectory()
        try Synthetic.quadrants(directory + "/q.jpg", width: 240, height: 160)
        let plain = try Data(contentsOf: URL(fileURLWithPath: directory + "/q.jpg"))
        let data = Self.withOrientation(plain, value: 6, type: type, bigEndian: bigEndian)
        let photo = ImageData(copying: data, name: "turned.jpg")
        #expect(try photo.header().orientation == 6, "libvips")
        #expect(data.withUnsafeBytes { JPEGCodec.info(of: $0)?.orientation } == 6, "fast path")
        var cards: [RenderPath: VImage] = [:]
        for engine in [RenderEngine.auto, .general] {
            let renderer = CardRenderer(catalogue: nil, settings: CardSettings(engine: engine))
            let card = try renderer.render(photo: photo, spec: CardSpec(), specFile: "defaults")
            cards[card.path] = try Fixtures.load(card.front.print)
        }
        let fast = try #require(cards[.fast]), general = try #require(cards[.general])
        // Turned a quarter: a portrait card from a landscape photo, on both paths.
        #expect(fast.width == 1240 && fast.height == 1748 && general.width == 1240 && general.height == 1748)
        #expect(try fast.meanAbsoluteDifference(to: general) < 1.5)
    }
}
