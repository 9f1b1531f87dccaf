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
