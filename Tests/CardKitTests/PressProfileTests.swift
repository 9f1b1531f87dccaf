import FastPath
import Foundation
import TestSupport
import Testing
import VipsKit

/// The press profiles in `press/profiles` (built with ArgyllCMS from icc-profiles-free's
/// characterisation data, see its README): what a print shop's preflight reads from their
/// header, and where sRGB's white and black land through them (relative colorimetric with
/// black point compensation, the conversion cardrender's print files use).
@Suite(.libvips) struct PressProfileTests {
    static let profiles = ["FOGRA39-TAC300", "GRACoL2006-TAC300"]

    static func path(_ name: String) -> String {
        Fixtures.root.appendingPathComponent("press/profiles/\(name).icc").path
    }

    @Test(arguments: profiles) func theHeaderSaysAPrinterProfileFromCMYKToLab(_ name: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.path(name))))
        func text(_ offset: Int) -> String { String(decoding: bytes[offset..<offset + 4], as: UTF8.self) }
        func number(_ offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        #expect(bytes.count > 100_000, "a CMYK printer profile with its tables")
        #expect(number(0) == bytes.count, "the declared size")
        #expect(text(36) == "acsp", "the ICC signature")
        #expect(text(12) == "prtr" && text(16) == "CMYK" && text(20) == "Lab ")
        #expect(bytes[8] == 2, "ICC version 2, which PDF/X-1a requires")
        // The tables a relative colorimetric conversion needs, both ways.
        let tags = (0..<number(128)).map { text(132 + 12 * $0) }
        #expect(Set(["A2B0", "A2B1", "B2A0", "B2A1", "wtpt", "desc", "cprt"]).isSubset(of: Set(tags)), "\(tags)")
    }

    @Test(arguments: profiles) func sRGBWhiteIsPaperAndBlackStaysUnderTheInkLimit(_ name: String) throws {
        let scratch = try Fixtures.scratchDirectory(name)
        let input = scratch + "/wb.v"
        let output = scratch + "/cmyk.tif"
        let colours: [[UInt8]] = [[255, 255, 255], [0, 0, 0], [128, 128, 128], [255, 0, 0]]
        try Synthetic.image(input, width: colours.count, height: 1, bands: 3) { x, _ in colours[x] }
        try Tools.vips(
            "icc_transform", input, output, Self.path(name), "--intent", "relative", "--black-point-compensation",
            "--input-profile", "srgb")
        let image = try Fixtures.load(output)
        #expect(image.bands == 4)
        let white = try image.pixel(x: 0, y: 0)
        let black = try image.pixel(x: 1, y: 0)
        let grey = try image.pixel(x: 2, y: 0)
        let red = try image.pixel(x: 3, y: 0)
        #expect(white.allSatisfy { $0 <= 1 }, "white is the paper, no ink: \(white)")
        let percent = { (cmyk: [Double]) in cmyk.reduce(0, +) / 255 * 100 }
        for cmyk in [black, grey, red] {
            #expect(percent(cmyk) <= 301, "total ink \(percent(cmyk)) % over the 300 % limit: \(cmyk)")
        }
        #expect(percent(black) >= 250, "black is a rich black near the limit: \(black)")
        #expect(black[3] >= 0.85 * 255, "black is carried by K: \(black)")
        #expect(grey[3] > 0.2 * 255 && grey[3] < 0.8 * 255, "a mid grey has some black, not all: \(grey)")
        #expect(red[0] < 0.1 * 255 && red[1] > 0.8 * 255 && red[2] > 0.8 * 255, "red is magenta + yellow: \(red)")
    }
}

/// sRGB to a press's CMYK on our side (`ColourTransform(fromSRGBToPress:inkLimit:)`, lcms2,
/// relative colorimetric with black point compensation): the ink limit holds on every colour
/// sRGB has (a 16-level grid of its cube) and on a real photo, the limit is enforced where
/// the profile's tables overshoot it, and the pixels are libvips's conversion's.
@Suite(.libvips) struct PressColourTests {
    /// Every combination of 16 levels per channel, and the corpus photo reduced.
    static func colours() throws -> MemoryImage {
        var pixels: [UInt8] = []
        for r in 0..<16 { for g in 0..<16 { for b in 0..<16 { pixels += [r, g, b].map { UInt8($0 * 17) } } } }
        return MemoryImage(width: 64, height: 64, pixels: pixels)
    }

    static func maximumInk(_ cmyk: [UInt8]) -> Int {
        stride(from: 0, to: cmyk.count, by: 4).map {
            Int(cmyk[$0]) + Int(cmyk[$0 + 1]) + Int(cmyk[$0 + 2]) + Int(cmyk[$0 + 3])
        }
        .max()!
    }

    @Test(arguments: PressProfileTests.profiles) func theInkLimitHoldsOnEveryColour(_ name: String) throws {
        let profile = [UInt8](try Data(contentsOf: URL(fileURLWithPath: PressProfileTests.path(name))))
        let transform = try ColourTransform.toPress(profile: profile, inkLimit: 300)
        #expect(try ColourTransform.toPress(profile: profile, inkLimit: 300) === transform, "made once")
        let grid = try Self.colours()
        let cmyk = transform.cmyk(grid)
        #expect(Self.maximumInk(cmyk) <= 765, "300 % is 765 in 8-bit units: \(Self.maximumInk(cmyk))")
        #expect(Array(cmyk[cmyk.count - 4..<cmyk.count]) == [0, 0, 0, 0], "sRGB white is paper")
        #expect(cmyk[3] >= 230 && Self.maximumInk(Array(cmyk[0..<4])) >= 640, "black: rich, carried by K")
        // A lower limit is enforced where the profile (built for 300 %) goes above it: black
        // and the dark colours are cut to 260 %, K kept, cyan, magenta and yellow reduced.
        let tight = try ColourTransform(fromSRGBToPress: profile, inkLimit: 260).cmyk(grid)
        let limit = 260 * 255 / 100
        #expect(Self.maximumInk(tight) <= limit)
        var reduced = 0
        for index in stride(from: 0, to: cmyk.count, by: 4) {
            let total = (0..<4).reduce(0) { $0 + Int(cmyk[index + $1]) }
            if total > limit {
                reduced += 1
                #expect(tight[index + 3] == cmyk[index + 3], "black is kept")
            } else {
                #expect(
                    Array(tight[index..<index + 4]) == Array(cmyk[index..<index + 4]), "within the limit: unchanged")
            }
        }
        #expect(reduced > 0, "the grid has colours over 260 % in this profile")
        #expect(throws: ColourTransform.Failure.self) { try ColourTransform(fromSRGBToPress: profile, inkLimit: 50) }
        #expect(throws: ColourTransform.Failure.self) {
            try ColourTransform(fromSRGBToPress: [1, 2, 3], inkLimit: 300)
        }
        // An RGB profile (libvips's sRGB, as it embeds it in a JPEG) is not a press's.
        let scratch = try Fixtures.scratchDirectory("srgb-\(name)")
        try Tools.vips("black", scratch + "/b.v", "8", "8", "--bands", "3")
        try Tools.vips("jpegsave", scratch + "/b.v", scratch + "/b.jpg", "--profile", "srgb")
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: scratch + "/b.jpg"))
        let srgb = try #require(jpeg.withUnsafeBytes { JPEGCodec.iccProfile(of: $0) })
        #expect(throws: ColourTransform.Failure.self) { try ColourTransform(fromSRGBToPress: srgb, inkLimit: 300) }
    }

    /// A real photo: within the limit, and the CMYK libvips's `icc_transform` makes (relative,
    /// black point compensation; the same lcms2 through libvips's own path) within a mean of
    /// 0.5 and one level per channel at worst (measured: mean 0.02, worst 1).
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func aPhotoIsLibvipssConversionWithinTheLimit() throws {
        let name = PressProfileTests.profiles[0]
        let scratch = try Fixtures.scratchDirectory("press-photo")
        try Tools.vips("thumbnail", Fixtures.photo("photos/jolla-3264x2448.jpg"), scratch + "/p.png", "400")
        try Tools.vips(
            "icc_transform", scratch + "/p.png", scratch + "/cmyk.tif", PressProfileTests.path(name), "--intent",
            "relative", "--black-point-compensation", "--input-profile", "srgb")
        let photo = try Fixtures.load(scratch + "/p.png")
        let rgb = MemoryImage(width: photo.width, height: photo.height, pixels: try photo.eightBitPixels())
        let profile = [UInt8](try Data(contentsOf: URL(fileURLWithPath: PressProfileTests.path(name))))
        let ours = try ColourTransform.toPress(profile: profile, inkLimit: 300).cmyk(rgb)
        let theirs = try Fixtures.load(scratch + "/cmyk.tif").eightBitPixels()
        #expect(ours.count == theirs.count)
        let differences = zip(ours, theirs).map { abs(Int($0) - Int($1)) }
        let mean = Double(differences.reduce(0, +)) / Double(differences.count)
        #expect(mean < 0.5 && differences.max()! <= 2, "mean \(mean), worst \(differences.max()!)")
        #expect(Self.maximumInk(ours) <= 765)
    }
}
