import FastPath
import Foundation
import TestSupport
import Testing
import VipsKit

/// The fast path's PNG encoder (libpng through `CPNGBridge`): lossless, the size and format
/// asked, the row filter chosen, and libpng's errors returned with its words.
@Suite(.libvips)
struct PNGCodecTests {
    /// A picture with gradients and edges, so every row filter has work.
    static func picture(width: Int, height: Int) -> MemoryImage {
        var pixels = [UInt8]()
        pixels.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                pixels += [
                    UInt8((x * 255) / max(1, width - 1)), UInt8((y * 7 + x * 3) % 256), x < width / 2 ? 40 : 210,
                ]
            }
        }
        return MemoryImage(width: width, height: height, pixels: pixels)
    }

    @Test("every level and filter set writes a PNG libvips decodes to the same pixels")
    func lossless() throws {
        let image = Self.picture(width: 203, height: 97)
        for level in [0, 1, 6, 9] {
            for filters in [PNGCodec.Filters.none, .paeth, .adaptive] {
                let bytes = try PNGCodec.encode(image, level: level, filters: filters)
                #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
                let decoded = try Fixtures.load(Data(bytes))
                #expect(decoded.width == 203 && decoded.height == 97 && decoded.bands == 3)
                #expect(try decoded.eightBitPixels() == image.pixels, "level \(level) \(filters)")
            }
        }
    }

    @Test("Paeth at level 1 (the default) is smaller than no filter on a photo-like picture")
    func defaultFilterHelps() throws {
        let image = Self.picture(width: 200, height: 150)
        let paeth = try PNGCodec.encode(image)
        let unfiltered = try PNGCodec.encode(image, level: 1, filters: .none)
        #expect(paeth.count < unfiltered.count, "\(paeth.count) vs \(unfiltered.count) bytes")
    }

    @Test("a libpng error comes back as a Failure with libpng's message, not an abort")
    func errorsReturn() throws {
        // libpng refuses widths above its user limit (1,000,000) in IHDR.
        let wide = MemoryImage(width: 1_000_001, height: 1, colour: [1, 2, 3])
        #expect {
            _ = try PNGCodec.encode(wide)
        } throws: { error in
            (error as? PNGCodec.Failure)?.message.contains("width") == true
        }
    }
}
