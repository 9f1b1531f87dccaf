import Foundation
import ImageCore
import TestSupport
import Testing
import VipsKit

/// Refusals that happen before any pixel is decoded: formats, sizes, broken files.
@Suite(.libvips) struct InputSafetyTests {
    @Test func recognisesContentNotName() throws {
        let directory = try Fixtures.scratchDirectory()
        let fake = directory + "/really-a-png.jpg"
        try Synthetic.quadrants(fake.replacingOccurrences(of: ".jpg", with: ".png"))
        try FileManager.default.moveItem(atPath: fake.replacingOccurrences(of: ".jpg", with: ".png"), toPath: fake)
        let header = try ImageData(contentsOfFile: fake, maxBytes: 1 << 20).header()
        #expect(header.format == .png)
        #expect(header.width == 64 && header.height == 48)
    }

    @Test func emptyFileIsRefusedByName() throws {
        let path = try Fixtures.scratchDirectory() + "/empty photo.jpg"
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        #expect(throws: ImageInputError.empty(file: path)) {
            try ImageData(contentsOfFile: path, maxBytes: 1 << 20)
        }
    }

    @Test func textNamedJpegIsUnrecognised() throws {
        let path = try Fixtures.scratchDirectory() + "/notes.jpg"
        try Data("hello, this is not a photo\n".utf8).write(to: URL(fileURLWithPath: path))
        let data = try ImageData(contentsOfFile: path, maxBytes: 1 << 20)
        #expect(throws: ImageInputError.unrecognised(file: path)) { try data.header() }
    }

    @Test func svgIsRefusedFromUntrustedInput() throws {
        let svg =
            #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>"#
        let data = ImageData(copying: Data(svg.utf8), name: "upload.svg")
        let error = #expect(throws: ImageInputError.self) { try data.header() }
        // With untrusted loaders blocked libvips may not even recognise it; either way it is refused.
        #expect(error == .unrecognised(file: "upload.svg") || error?.description.contains("SVG") == true)
    }

    @Test func fileOverByteLimitIsRefusedBeforeReading() throws {
        let path = try Fixtures.scratchDirectory() + "/big.png"
        try Synthetic.quadrants(path)
        let size = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(throws: ImageInputError.fileTooLarge(file: path, bytes: size, limit: 100)) {
            try ImageData(contentsOfFile: path, maxBytes: 100)
        }
    }

    @Test func missingFileAndDirectoryAreNamed() throws {
        let directory = try Fixtures.scratchDirectory()
        let missing = #expect(throws: ImageInputError.self) {
            try ImageData(contentsOfFile: directory + "/nope.jpg", maxBytes: 1 << 20)
        }
        #expect(missing?.file == directory + "/nope.jpg")
        #expect(throws: ImageInputError.notAFile(file: directory)) {
            try ImageData(contentsOfFile: directory, maxBytes: 1 << 20)
        }
    }

    /// A 40000x40000 PNG of a few hundred KB (1-bit grey, zlib-compressed zeros) is refused
    /// from its header: no decode, so it is fast and memory stays small.
    @Test func pixelBombIsRefusedFromTheHeader() throws {
        let path = try Fixtures.scratchDirectory() + "/bomb.png"
        try Tools.python(
            """
            import struct, sys, zlib
            w = h = 40000
            def chunk(kind, body):
                return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body))
            z = zlib.compressobj(9)
            row = bytes(1 + w // 8)
            idat = b''.join(z.compress(row) for _ in range(h)) + z.flush()
            png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 1, 0, 0, 0, 0))
            png += chunk(b'IDAT', idat) + chunk(b'IEND', b'')
            open(sys.argv[1], 'wb').write(png)
            """, [path])
        let size = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size < 1_000_000)
        let clock = ContinuousClock()
        var caught: ImageInputError?
        let elapsed = clock.measure {
            do {
                _ = try ImageData(contentsOfFile: path, maxBytes: 64 << 20).header()
            } catch let error as ImageInputError {
                caught = error
            } catch {}
        }
        #expect(caught == .tooManyPixels(file: path, width: 40000, height: 40000, limit: 120_000_000))
        // Not a timing test: a decode of 1.6 gigapixels would take far longer and gigabytes; the
        // header read takes a millisecond, so only a stall of the whole machine reaches this bound.
        #expect(elapsed < .seconds(10))
        #expect(caught?.description.contains("it was not decoded") == true)
    }

    @Test func pixelLimitIsConfigurable() throws {
        let path = try Fixtures.scratchDirectory() + "/q.png"
        try Synthetic.quadrants(path)
        let data = try ImageData(contentsOfFile: path, maxBytes: 1 << 20)
        #expect(throws: ImageInputError.tooManyPixels(file: path, width: 64, height: 48, limit: 1000)) {
            try data.header(policy: DecodePolicy(maxPixels: 1000))
        }
        #expect(try data.header(policy: DecodePolicy(maxPixels: 64 * 48)).width == 64)
    }

    /// Every decode checks the pixel limit itself: a caller that skips `header(policy:)`
    /// still cannot decode more pixels than its policy allows.
    @Test func everyDecodeEnforcesThePixelLimit() throws {
        let path = try Fixtures.scratchDirectory() + "/q.jpg"
        try Tools.vips("black", path, "64", "48", "--bands", "3")
        let data = try ImageData(contentsOfFile: path, maxBytes: 1 << 20)
        let small = DecodePolicy(maxPixels: 1000)
        let refused = ImageInputError.tooManyPixels(file: path, width: 64, height: 48, limit: 1000)
        #expect(throws: refused) { try data.decode(policy: small, strict: true) }
        #expect(throws: refused) { try data.decode(policy: small, strict: true, atLeast: 8, height: 6) }
        #expect(throws: refused) { try data.thumbnail(policy: small, width: 8, height: 6, strict: true) }
        #expect(try data.decode(policy: DecodePolicy(maxPixels: 64 * 48), strict: true).width == 64)
    }

    @Test func formatsCanBeNarrowed() throws {
        let path = try Fixtures.scratchDirectory() + "/q.png"
        try Synthetic.quadrants(path)
        let data = try ImageData(contentsOfFile: path, maxBytes: 1 << 20)
        let error = #expect(throws: ImageInputError.self) {
            try data.header(policy: DecodePolicy(formats: [.jpeg]))
        }
        #expect(error?.description.contains("a png file, which is not accepted") == true)
    }

    /// Bytes handed over by the caller are copied into a blob that outlives the caller's
    /// buffer: the lazy pipeline runs after the original array is gone.
    @Test func bytesOutliveTheCallersBuffer() throws {
        let path = try Fixtures.scratchDirectory() + "/q.png"
        try Synthetic.quadrants(path)
        func makeData() throws -> ImageData {
            var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let data = ImageData(copying: bytes, name: "q.png")
            for index in bytes.indices { bytes[index] = 0 }  // scribble over the caller's copy
            return data
        }
        let image = try makeData().thumbnail(policy: .default, width: 32, height: 24, strict: true)
        let png = try image.encoded(EncodeOptions(format: .png))
        let decoded = try Fixtures.load(png)
        let topLeft = try decoded.pixel(x: 2, y: 2)
        #expect(abs(topLeft[0] - 220) < 8 && topLeft[1] < 40)
    }
}
