import FileUtilities
import Foundation
import ImageCore
import TestSupport
import Testing
import VipsKit

/// Encoding: formats, alpha handling, metadata policy, file output.
@Suite(.libvips) struct EncodeTests {
    /// A 40x30 RGBA image: left half opaque red, right half fully transparent.
    private func halfTransparent() throws -> VImage {
        let path = try Fixtures.scratchDirectory() + "/alpha.png"
        try Synthetic.image(path, width: 40, height: 30, bands: 4) { x, _ in
            x < 20 ? [200, 0, 0, 255] : [0, 0, 0, 0]
        }
        return try Fixtures.load(path)
    }

    @Test(arguments: OutputFormat.allCases)
    func everyFormatRoundTrips(format: OutputFormat) throws {
        let path = try Fixtures.scratchDirectory() + "/q.png"
        try Synthetic.quadrants(path)
        let bytes = try Fixtures.load(path).encoded(EncodeOptions(format: format))
        let header = try ImageData(copying: bytes, name: "out").header()
        let expected: InputFormat =
            switch format {
            case .png: .png
            case .jpeg: .jpeg
            case .webp: .webp
            case .avif: .heif
            case .tiff: .tiff
            case .gif: .gif
            }
        #expect(header.format == expected)
        #expect(header.width == 64 && header.height == 48)
        let decoded = try Fixtures.load(bytes)
        let bottomRight = try decoded.pixel(x: 60, y: 44)
        #expect(abs(bottomRight[0] - 230) < 20 && abs(bottomRight[2] - 30) < 25)
    }

    @Test func alphaIsFlattenedOnWhiteForJPEG() throws {
        let jpeg = try Fixtures.load(try halfTransparent().encoded(EncodeOptions(format: .jpeg, quality: 95)))
        #expect(jpeg.bands == 3)
        let clear = try jpeg.pixel(x: 35, y: 15)
        #expect(clear.allSatisfy { $0 > 245 })
        let red = try jpeg.pixel(x: 5, y: 15)
        #expect(red[0] > 180 && red[1] < 30)
    }

    @Test func backgroundIsConfigurable() throws {
        let options = EncodeOptions(format: .jpeg, quality: 95, background: [0, 0, 0])
        let jpeg = try Fixtures.load(try halfTransparent().encoded(options))
        #expect(try jpeg.pixel(x: 35, y: 15).allSatisfy { $0 < 10 })
    }

    @Test(arguments: [OutputFormat.png, .webp, .avif])
    func alphaIsKept(format: OutputFormat) throws {
        let decoded = try Fixtures.load(try halfTransparent().encoded(EncodeOptions(format: format)))
        #expect(decoded.hasAlpha)
        #expect(try decoded.pixel(x: 35, y: 15)[3] < 5)
        #expect(try decoded.pixel(x: 5, y: 15)[3] > 250)
    }

    /// The iPhone photo carries GPS, camera make and model, dates and XMP: none may leak.
    /// (libvips 8.14's WebP saver always writes a minimal EXIF block of its own, with
    /// orientation and resolution only: allowed.)
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func metadataIsStrippedByDefault() throws {
        let source = try Fixtures.load(Fixtures.photo("photos/iphone-hdr-3264x2448.jpg"))
        #expect(source.metadataFields.contains { $0.contains("GPS") })
        let small = try source.resized(scale: 0.05)
        let private_ = ["GPS", "Make", "Model", "DateTime", "xmp-data", "iptc-data", "icc-profile-data"]
        for format in OutputFormat.allCases {
            let decoded = try Fixtures.load(try small.encoded(EncodeOptions(format: format)))
            let leaked = decoded.metadataFields.filter { field in private_.contains { field.contains($0) } }
            #expect(leaked.isEmpty, "\(format) kept \(leaked)")
        }
        let kept = try Fixtures.load(try small.encoded(EncodeOptions(format: .jpeg, keepMetadata: true)))
        #expect(kept.metadataFields.contains { $0.contains("GPS") })
    }

    @Test func jpegOptionsChangeTheBytes() throws {
        let path = try Fixtures.scratchDirectory() + "/q.png"
        try Synthetic.quadrants(path, width: 256, height: 192)
        let image = try Fixtures.load(path)
        let low = try image.encoded(EncodeOptions(format: .jpeg, quality: 30))
        let high = try image.encoded(EncodeOptions(format: .jpeg, quality: 95))
        #expect(low.count < high.count)
        let progressive = try image.encoded(EncodeOptions(format: .jpeg, quality: 95, progressive: true))
        #expect(progressive != high)
        // SOF2 marker (0xFFC2) marks a progressive JPEG.
        #expect(progressive.windowsOfTwo.contains([0xFF, 0xC2]))
        #expect(!high.windowsOfTwo.contains([0xFF, 0xC2]))
        let palette = try image.encoded(EncodeOptions(format: .png, palette: true))
        let full = try image.encoded(EncodeOptions(format: .png))
        #expect(try Fixtures.load(palette).meanAbsoluteDifference(to: Fixtures.load(full)) < 3)
    }

    @Test func fileOutputIsAtomic() throws {
        let directory = try Fixtures.scratchDirectory()
        let path = try Fixtures.scratchDirectory() + "/q.png"
        try Synthetic.quadrants(path)
        let image = try Fixtures.load(path)
        try image.write(to: directory + "/out é.jpg", EncodeOptions(format: .jpeg))
        #expect(try ImageData(contentsOfFile: directory + "/out é.jpg", maxBytes: 1 << 20).header().format == .jpeg)
        #expect(throws: AtomicFile.WriteError.self) {
            try image.write(to: directory + "/missing-dir/out.jpg", EncodeOptions(format: .jpeg))
        }
        #expect(Fixtures.files(under: directory) == ["out é.jpg"])
    }
}

extension Data {
    /// Every pair of consecutive bytes, for marker searches.
    fileprivate var windowsOfTwo: [[UInt8]] {
        let bytes = [UInt8](self)
        return zip(bytes, bytes.dropFirst()).map { [$0, $1] }
    }
}
