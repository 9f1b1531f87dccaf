import Foundation
import ImageCore
import TestSupport
import Testing
import VipsKit

/// Colour management: profiles applied, CMYK read, bit depth and grey normalised.
@Suite(.libvips) struct ColourTests {
    @Test func cmykJPEGWithAndWithoutProfileComesOutSRGB() throws {
        let directory = try Fixtures.scratchDirectory()
        let source = directory + "/q.png"
        // Photo-like colours inside the CMYK gamut (pure primaries are not, whatever the code does).
        try Synthetic.image(source, width: 64, height: 48, bands: 3) { x, y in
            switch (x < 32, y < 24) {
            case (true, true): [180, 120, 100]
            case (false, true): [100, 150, 110]
            case (true, false): [110, 120, 170]
            case (false, false): [200, 190, 120]
            }
        }
        try Tools.vips("colourspace", source, directory + "/cmyk.v", "cmyk")
        try Tools.vips("jpegsave", directory + "/cmyk.v", directory + "/with-profile.jpg", "--Q", "95")
        try Tools.vips("jpegsave", directory + "/cmyk.v", directory + "/no-profile.jpg", "--Q", "95", "--strip")
        let original = try Fixtures.load(source)
        for name in ["with-profile.jpg", "no-profile.jpg"] {
            let data = try ImageData(contentsOfFile: directory + "/" + name, maxBytes: 1 << 20)
            let raw = try data.decode(strict: true)
            #expect(raw.bands == 4, "\(name) should really be CMYK")
            let srgb = try raw.normalisedToSRGB()
            #expect(srgb.bands == 3)
            let difference = try srgb.meanAbsoluteDifference(to: original)
            // A CMYK round trip through two profiles and JPEG q95: 6/255 is visibly the same picture;
            // reading the CMYK bands as if they were RGB gives well over 50.
            #expect(difference < 6, "\(name): mean absolute difference \(difference)")
        }
    }

    @Test func sixteenBitAndGreyBecomeEightBit() throws {
        let directory = try Fixtures.scratchDirectory()
        let source = directory + "/q.png"
        try Synthetic.quadrants(source)
        try Tools.vips("colourspace", source, directory + "/q16.v", "rgb16")
        try Tools.vips("pngsave", directory + "/q16.v", directory + "/q16.png")
        try Tools.vips("colourspace", source, directory + "/grey.png", "b-w")
        try Tools.vips("colourspace", directory + "/grey.png", directory + "/grey16.v", "grey16")
        try Tools.vips("pngsave", directory + "/grey16.v", directory + "/grey16.png")

        let wide = try Fixtures.load(directory + "/q16.png")
        #expect(!wide.isEightBit)  // not uchar on the way in
        let narrowed = try wide.normalisedToSRGB()
        #expect(narrowed.bands == 3)
        #expect(try narrowed.meanAbsoluteDifference(to: Fixtures.load(source)) < 1.5)
        let png = try Fixtures.load(try narrowed.encoded(EncodeOptions(format: .png)))
        #expect(png.isEightBit)

        for name in ["grey.png", "grey16.png"] {
            let grey = try Fixtures.load(directory + "/" + name).normalisedToSRGB()
            #expect(grey.bands == 1)
            #expect(grey.isEightBit)
            #expect(try grey.meanAbsoluteDifference(to: Fixtures.load(directory + "/grey.png")) < 1.5)
        }
    }

    /// The iPhone HEIC carries a Display P3 profile: our thumbnail must match a reference
    /// made by `vips icc_transform ... srgb --embedded` on the full image, and be further
    /// from the untransformed pixels (proof the test can fail).
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func displayP3HEICIsConvertedToSRGB() throws {
        let heic = Fixtures.photo("photos/iphone13-3024x4032.heic")
        let directory = try Fixtures.scratchDirectory()
        let data = try ImageData(contentsOfFile: heic, maxBytes: 64 << 20)
        let raw = try data.decode(strict: true)
        #expect(raw.hasICCProfile)
        let ours = try data.thumbnail(policy: .default, width: 300, height: 400, strict: true).normalisedToSRGB()
        try Tools.vips("icc_transform", heic, directory + "/ref.png", "srgb", "--embedded")
        let reference = try Fixtures.load(directory + "/ref.png").autoOriented()
        let scaledReference = try reference.resized(
            scale: 300 / Double(reference.width), verticalScale: 400 / Double(reference.height))
        let untransformed = try raw.resized(scale: 300 / Double(raw.width), verticalScale: 400 / Double(raw.height))
        #expect(ours.width == scaledReference.width && ours.height == scaledReference.height)
        let toReference = try ours.meanAbsoluteDifference(to: scaledReference)
        let toRaw = try ours.meanAbsoluteDifference(to: untransformed)
        // Resampling paths differ (shrink-on-load vs Lanczos): 2/255 allows that, not a profile error.
        #expect(toReference < 2.0, "MAD to the icc_transform reference: \(toReference)")
        #expect(toRaw > toReference * 1.5, "P3 and sRGB pixels should differ: raw \(toRaw), ref \(toReference)")
    }
}
