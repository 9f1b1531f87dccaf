import CardKit
import FastPath
import Foundation
import ImageCore
import PhotoSources
import TestSupport
import Testing
import Thumbnails
import VipsKit

/// Thumbnails of colour JPEGs take the fast path and give the pictures libvips's
/// `thumbnail` gives (same size, mean absolute difference below 1.5, no 64 x 64 tile above
/// 4); every other input, and thumbnails that keep metadata, go the libvips way; damaged
/// JPEGs fail or warn naming the file, as on the general path.
@Suite(.libvips) struct ThumbnailFastPathTests {
    /// Both paths' thumbnails of `file` at `width` (PNG, lossless, so only the pixel paths
    /// differ), compared.
    func compare(_ file: String, width: Int, enlarge: Bool = false) throws {
        let data = try ImageData(contentsOfFile: file, maxBytes: 64 << 20)
        let fast = try Thumbnailer().thumbnail(of: data, width: width, enlarge: enlarge)
        let general = try Thumbnailer(engine: .general).thumbnail(of: data, width: width, enlarge: enlarge)
        let label = "\((file as NSString).lastPathComponent) at \(width)"
        #expect(fast.path == .fast, "\(label): expected the fast path")
        #expect(general.path == .general)
        #expect(fast.width == general.width && fast.height == general.height, "\(label)")
        let a = try FastPathTests.pixels(fast.data)
        let b = try FastPathTests.pixels(general.data)
        guard a.width == b.width && a.height == b.height, a.width == fast.width, a.height == fast.height else {
            Issue.record("\(label): \(a.width)x\(a.height) against \(b.width)x\(b.height)")
            return
        }
        let difference = FastPathTests.difference(a.pixels, b.pixels, width: a.width, height: a.height)
        #expect(difference.isSamePicture, "\(label): not the same picture: \(difference)")
    }

    @Test(
        .enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing),
        arguments: ["Landscape", "Portrait"].flatMap { kind in (0...8).map { "orientation/\(kind)_\($0).jpg" } })
    func everyOrientation(_ photo: String) throws {
        try compare(Fixtures.photo(photo), width: 200)
        try compare(Fixtures.photo(photo), width: 450)
    }

    /// Reducing by 1/8 and more (the DCT scale), by less than 2, to the source size, and
    /// enlarging.
    @Test(
        .enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing),
        arguments: [
            ("photos/phone-4032x3024.jpg", 200, false), ("photos/phone-4032x3024.jpg", 2500, false),
            ("photos/nokia-8.3-4608x1976.jpg", 640, false), ("photos/reconyx-2048x1536.jpg", 2048, false),
            ("photos/jolla-3264x2448.jpg", 1000, false), ("orientation/Portrait_6.jpg", 1000, true),
        ])
    func reducingAndEnlarging(_ photo: String, _ width: Int, _ enlarge: Bool) throws {
        try compare(Fixtures.photo(photo), width: width, enlarge: enlarge)
    }

    /// Which inputs take which path.
    @Test func thePathFollowsTheInput() throws {
        let directory = try Fixtures.scratchDirectory("thumb-paths")
        try Synthetic.image(directory + "/colour.jpg", width: 120, height: 80, bands: 3) { x, y in
            [UInt8(x * 2), UInt8(y * 3), 90]
        }
        try Synthetic.image(directory + "/grey.jpg", width: 120, height: 80, bands: 1) { x, _ in [UInt8(x * 2)] }
        try Synthetic.image(directory + "/colour.png", width: 120, height: 80, bands: 3) { x, y in
            [UInt8(x * 2), UInt8(y * 3), 90]
        }
        try Tools.vips("icc_export", directory + "/colour.jpg", directory + "/cmyk.v", "--output-profile", "cmyk")
        try Tools.vips("jpegsave", directory + "/cmyk.v", directory + "/cmyk.jpg")
        let thumbnailer = Thumbnailer()
        for (file, path) in [
            ("colour.jpg", RenderPath.fast), ("grey.jpg", .general), ("colour.png", .general), ("cmyk.jpg", .general),
        ] {
            let thumbnail = try thumbnailer.thumbnail(file: directory + "/" + file, width: 60)
            #expect(thumbnail.path == path, "\(file)")
            #expect(thumbnail.width == 60 && thumbnail.height == 40, "\(file)")
        }
        let kept = try thumbnailer.thumbnail(
            file: directory + "/colour.jpg", width: 60, options: EncodeOptions(format: .jpeg, keepMetadata: true))
        #expect(kept.path == .general, "metadata kept: libvips copies it")
        let forced = try Thumbnailer(engine: .general).thumbnail(file: directory + "/colour.jpg", width: 60)
        #expect(forced.path == .general)
        // The fast path's output is the format asked for, whatever it is.
        for format in [OutputFormat.png, .jpeg, .webp] {
            let thumbnail = try thumbnailer.thumbnail(
                file: directory + "/colour.jpg", width: 60, options: EncodeOptions(format: format))
            let image = try Fixtures.load(thumbnail.data)
            #expect(image.width == 60 && image.height == 40 && thumbnail.path == .fast, "\(format)")
        }
    }

    /// A truncated JPEG: an error naming the file, or a thumbnail with a warning when
    /// lenient, on both paths.
    @Test func aTruncatedJPEGIsDamagedOrAWarning() throws {
        let whole = try FastPathDamageTests.photo(800, 600)
        let truncated = ImageData(copying: whole.prefix(whole.count * 2 / 3), name: "broken.jpg")
        for engine in RenderEngine.allCases {
            #expect {
                try Thumbnailer(engine: engine).thumbnail(of: truncated, width: 100)
            } throws: { error in
                if case .damaged(let file, _) = error as? ImageInputError { return file == "broken.jpg" }
                return false
            }
            let lenient = try Thumbnailer(policy: DecodePolicy(damage: .warn), engine: engine)
                .thumbnail(of: truncated, width: 100)
            #expect(lenient.warning?.hasPrefix("broken.jpg: damaged image data") == true, "\(engine)")
            #expect(lenient.path == (engine == .auto ? .fast : .general))
            #expect(lenient.width == 100 && lenient.height == 75)
        }
    }
}
