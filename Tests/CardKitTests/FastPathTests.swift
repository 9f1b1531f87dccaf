import FastPath
import Foundation
import ImageCore
import PhotoSources
import TestSupport
import Testing
import Thumbnails
import VipsKit

@testable import CardKit

/// The fast path gives the pictures the general (libvips) path gives, within what
/// resampling and JPEG round-off explain: same size, mean absolute difference below 1.5
/// and no 64 x 64 tile above 4 (0-255 scale), on the corpus, every orientation, every
/// effect at several strengths, frames, crop and transform placements, enlarging and
/// reducing, bleed, portrait and landscape. And the comparison can fail: a half-pixel
/// shift and a wrong orientation are caught.
@Suite(.libvips, .enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
struct FastPathTests {
    static let catalogue = try? FrameCatalogue(directory: Fixtures.root.path + "/frames")

    /// How far apart two decoded images are.
    struct Difference: CustomStringConvertible {
        var mean: Double
        var worstTile: Double
        var description: String { "mean \(mean), worst 64x64 tile \(worstTile)" }
        var isSamePicture: Bool { isSamePicture(allowing: 0) }
        /// Within the limits, widened by a measured JPEG round-off.
        func isSamePicture(allowing roundOff: Double) -> Bool {
            mean < 1.5 + roundOff && worstTile <= 4 + 3 * roundOff
        }
    }

    static func difference(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int) -> Difference {
        var total = 0
        var tiles: [Int: Int] = [:]
        let tilesAcross = (width + 63) / 64
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 3
                let d =
                    abs(Int(a[index]) - Int(b[index])) + abs(Int(a[index + 1]) - Int(b[index + 1]))
                    + abs(Int(a[index + 2]) - Int(b[index + 2]))
                total += d
                tiles[(y / 64) * tilesAcross + x / 64, default: 0] += d
            }
        }
        var worst = 0.0
        for (tile, sum) in tiles {
            let (tx, ty) = (tile % tilesAcross, tile / tilesAcross)
            let pixels = (min(width, tx * 64 + 64) - tx * 64) * (min(height, ty * 64 + 64) - ty * 64)
            worst = max(worst, Double(sum) / Double(pixels * 3))
        }
        return Difference(mean: Double(total) / Double(width * height * 3), worstTile: worst)
    }

    /// The mean change one q85 4:2:0 encode makes to a picture like `sample`: its pixels
    /// encoded once more from a fresh resample (so not already JPEG-shaped) and decoded.
    static func jpegRoundOff(_ sample: Data) throws -> Double {
        let image = try Fixtures.load(sample)
        let fresh = try image.resized(scale: 0.999).exactly(width: image.width, height: image.height)
        let encoded = try fresh.encoded(EncodeOptions(format: .jpeg, quality: 85))
        return try Fixtures.load(encoded).meanAbsoluteDifference(to: fresh.inMemory())
    }

    static func pixels(_ data: Data) throws -> (pixels: [UInt8], width: Int, height: Int) {
        let image = try Fixtures.load(data)
        return (try image.eightBitPixels(), image.width, image.height)
    }

    /// Renders `spec` on the corpus `photo` both ways and compares the three outputs.
    func compare(_ photo: String, _ spec: CardSpec, _ label: String) throws {
        try compare(file: Fixtures.photo(photo), spec, label)
    }

    /// Renders `spec` on the photo at `file` both ways and compares the three outputs.
    func compare(file: String, _ spec: CardSpec, _ label: String) throws {
        let data = try ImageData(contentsOfFile: file, maxBytes: 64 << 20)
        let fast = try CardRenderer(catalogue: Self.catalogue).render(photo: data, spec: spec, specFile: label)
        let general = try CardRenderer(catalogue: Self.catalogue, settings: .init(engine: .general))
            .render(photo: data, spec: spec, specFile: label)
        #expect(fast.path == .fast, "\(label): expected the fast path")
        #expect(general.path == .general)
        for (name, ours, theirs) in [
            ("print", fast.front.print, general.front.print), ("sample", fast.front.sample, general.front.sample),
            ("small", fast.front.small, general.front.small),
        ] {
            let a = try Self.pixels(ours)
            let b = try Self.pixels(theirs)
            // The sample is a q85 4:2:0 JPEG: one such encode alone moves detailed pictures by a
            // mean of 2 to 3 (measured here on the general path's own sample pixels), so its
            // limits are the print's plus that round-off; the print (q92 4:4:4) and the small
            // PNG get the plain limits.
            let roundOff = name == "sample" ? try Self.jpegRoundOff(theirs) : 0
            guard a.width == b.width && a.height == b.height else {
                Issue.record("\(label) \(name): \(a.width)x\(a.height) against \(b.width)x\(b.height)")
                continue
            }
            let difference = Self.difference(a.pixels, b.pixels, width: a.width, height: a.height)
            if !difference.isSamePicture(allowing: roundOff) {
                Issue.record("\(label) \(name): not the same picture: \(difference) (q85 round-off \(roundOff))")
            }
        }
    }

    @Test(arguments: ["Landscape", "Portrait"].flatMap { kind in (0...8).map { "orientation/\(kind)_\($0).jpg" } })
    func everyOrientationCoverAndEnlarged(_ photo: String) throws {
        try compare(photo, CardSpec(), "\(photo) cover")
    }

    @Test(arguments: [
        ("sepia", 1.0), ("sepia", 0.5), ("bw", 1.0), ("bw", 0.5), ("vintage", 1.0), ("vintage", 0.5), ("vintage", 0.0),
    ])
    func effectsAtStrengths(_ name: String, _ strength: Double) throws {
        let effect = ColourEffect(ColourEffect.Name(rawValue: name)!, strength: strength)
        try compare("photos/jolla-3264x2448.jpg", CardSpec(effect: effect), "\(name) \(strength)")
    }

    @Test func framesBleedCropAndTurns() throws {
        try compare(
            "photos/phone-4032x3024.jpg",
            CardSpec(frame: "travel/airmail", effect: ColourEffect(.sepia), format: CardFormat(bleed: 3)),
            "airmail sepia bleed")
        try compare(
            "photos/nokia-8.3-4608x1976.jpg",
            CardSpec(placement: .crop(x: 1000, y: 200, width: 2100, height: 1382), frame: "love/hearts"), "crop")
        try compare(
            "photos/reconyx-2048x1536.jpg",
            CardSpec(placement: .transform(scale: 1.4, rotation: 90, offsetX: 0.1, offsetY: -0.05)), "quarter turn")
        try compare(
            "photos/iphone-hdr-3264x2448.jpg",
            CardSpec(
                placement: .transform(scale: 0.6, rotation: -180, offsetX: 0, offsetY: 0.2), background: [20, 40, 60]),
            "half turn on a background")
        try compare(
            "orientation/Portrait_6.jpg", CardSpec(placement: .crop(x: 10, y: 400, width: 1180, height: 837)),
            "enlarged crop of a turned photo")
    }

    /// Crops decode only the rows they read: from the top for photos stored upright or
    /// mirrored (orientations 1, 2), from the bottom for upside-down ones (3, 4), all rows for
    /// turned ones (5 to 8). The rows given are exactly those rows of the whole decode, at
    /// full and DCT scales, near both edges.
    @Test(arguments: [1, 2, 3, 4, 6])
    func aBandIsThoseRowsOfTheWholePhoto(_ orientation: Int) throws {
        let data = try ImageData(
            contentsOfFile: Fixtures.photo("orientation/Landscape_\(orientation).jpg"), maxBytes: 64 << 20)
        let source = try #require(FastJPEGSource(data, header: data.header(policy: .default)))
        for shrink in [1, 2] {
            let (whole, wholeTop, _) = try source.decodeUpright(shrink: shrink, policy: .default)
            #expect(wholeTop == 0)
            let height = whole.height
            for rows in [0..<37, (height - 50)..<height, 101..<(height / 2)] {
                let (band, top, _) = try source.decodeUpright(shrink: shrink, rows: rows, policy: .default)
                let expected = orientation <= 4 ? rows : 0..<height
                #expect(top == expected.lowerBound && band.height == expected.count, "\(orientation) \(rows)")
                let start = expected.lowerBound * whole.stride
                #expect(
                    band.pixels[...] == whole.pixels[start..<(start + expected.count * whole.stride)],
                    "orientation \(orientation), 1/\(shrink), rows \(rows): not the whole decode's rows")
            }
        }
    }

    /// Crops near the top and bottom edges of upside-down and turned photos, reduced and
    /// enlarged, against the libvips path. (Reduced crops are compared on a real photo in
    /// `framesBleedCropAndTurns`: on these sharp synthetic edges the libvips path's second
    /// resampling, of the cut-out after the whole photo, blurs past the limits.)
    @Test(arguments: [3, 6]) func cropsNearTheEdges(_ orientation: Int) throws {
        let photo = "orientation/Landscape_\(orientation).jpg"
        try compare(photo, CardSpec(placement: .crop(x: 90, y: 902, width: 420, height: 298)), "\(photo) bottom")
        try compare(photo, CardSpec(placement: .crop(x: 1300, y: 0, width: 500, height: 355)), "\(photo) top")
        if orientation == 3 {
            try compare(
                "photos/jolla-3264x2448.jpg",
                CardSpec(placement: .crop(x: 1000, y: 887, width: 2200, height: 1561)), "reduced crop at the bottom")
        }
    }

    /// The comparison catches what it must: half a pixel of shift, a wrong orientation.
    @Test func theComparisonCatchesAShiftAndAWrongOrientation() throws {
        let data = try ImageData(contentsOfFile: Fixtures.photo("orientation/Landscape_1.jpg"), maxBytes: 64 << 20)
        let card = try CardRenderer(catalogue: nil).render(photo: data, spec: CardSpec(), specFile: "shift")
        let print = try Self.pixels(card.front.print)
        let image = MemoryImage(width: print.width, height: print.height, pixels: print.pixels)
        let shifted = PixelKernels.resample(
            image, box: (0.5, 0, Double(image.width), Double(image.height)), width: image.width, height: image.height)
        let shift = Self.difference(print.pixels, shifted.pixels, width: image.width, height: image.height)
        #expect(!shift.isSamePicture, "a half-pixel shift passed: \(shift)")
        let turned = PixelKernels.oriented(image, 3)
        let wrong = Self.difference(print.pixels, turned.pixels, width: image.width, height: image.height)
        #expect(!wrong.isSamePicture, "a half turn passed: \(wrong)")
    }

    /// Same bytes every time, whatever else runs.
    @Test func outputsAreDeterministic() throws {
        let data = try ImageData(contentsOfFile: Fixtures.photo("photos/phone-4032x3024.jpg"), maxBytes: 64 << 20)
        let spec = CardSpec(frame: "travel/airmail", effect: ColourEffect(.vintage))
        let renderer = CardRenderer(catalogue: Self.catalogue)
        let first = try renderer.render(photo: data, spec: spec, specFile: "a")
        let second = try renderer.render(photo: data, spec: spec, specFile: "a")
        #expect(first.front.print == second.front.print && first.front.small == second.front.small)
    }

    /// Who takes which path: JPEGs with an sRGB profile (or none) and a Display P3 JPEG (an
    /// iPhone photo, converted by lcms2) take the fast path; a CMYK JPEG goes the libvips way.
    @Test func thePathFollowsTheColourOfThePhoto() throws {
        let directory = try Fixtures.scratchDirectory("colour")
        try Tools.vips("black", directory + "/b.v", "64", "48", "--bands", "3")
        try Tools.vips("linear", directory + "/b.v", directory + "/c.v", "1", "120", "--uchar")
        try Tools.vips("jpegsave", directory + "/c.v", directory + "/srgb.jpg", "--profile", "srgb")
        try Tools.vips("icc_export", directory + "/c.v", directory + "/cmyk.v", "--output-profile", "cmyk")
        try Tools.vips("jpegsave", directory + "/cmyk.v", directory + "/cmyk.jpg")
        try Tools.vips("copy", Fixtures.photo("photos/iphone13-3024x4032.heic"), directory + "/p3.jpg")
        for (file, path) in [("srgb.jpg", RenderPath.fast), ("cmyk.jpg", .general), ("p3.jpg", .fast)] {
            let data = try ImageData(contentsOfFile: directory + "/" + file, maxBytes: 64 << 20)
            let card = try CardRenderer(catalogue: nil).render(photo: data, spec: CardSpec(), specFile: file)
            #expect(card.path == path, "\(file)")
        }
    }

    /// The corpus iPhone 13 photo (Display P3) as a P3 JPEG, the way "Most Compatible" saves
    /// it: libvips keeps the profile and the P3 pixels.
    static func displayP3JPEG() throws -> String {
        let path = try Fixtures.scratchDirectory("p3") + "/iphone13-p3.jpg"
        try Tools.vips("copy", Fixtures.photo("photos/iphone13-3024x4032.heic"), path + "[Q=92]")
        return path
    }

    /// A Display P3 photo converted by lcms2 on the fast path is the picture libvips makes:
    /// a cover, a framed card with an effect, and the thumbnail.
    @Test func displayP3JPEGMatchesTheGeneralPath() throws {
        let file = try Self.displayP3JPEG()
        try compare(file: file, CardSpec(), "P3 cover")
        try compare(
            file: file, CardSpec(frame: "travel/airmail", effect: ColourEffect(.sepia)), "P3 airmail sepia")
        let data = try ImageData(contentsOfFile: file, maxBytes: 64 << 20)
        let fast = try Thumbnailer().thumbnail(of: data, width: 300)
        let general = try Thumbnailer(engine: .general).thumbnail(of: data, width: 300)
        #expect(fast.path == .fast && general.path == .general)
        let (a, b) = (try Self.pixels(fast.data), try Self.pixels(general.data))
        #expect(a.width == b.width && a.height == b.height)
        let difference = Self.difference(a.pixels, b.pixels, width: a.width, height: a.height)
        #expect(difference.isSamePicture(allowing: 0), "P3 thumbnail: \(difference)")
    }
}
