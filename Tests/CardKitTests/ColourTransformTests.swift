import FastPath
import Foundation
import TestSupport
import Testing

/// The fast path's colour conversion (Display P3 and other RGB profiles to sRGB): its own
/// matrix-shaper tables give lcms2's colours, and a profile lcms2 cannot use is refused.
@Suite(.libvips, .enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
struct ColourTransformTests {
    /// The Display P3 profile of the corpus iPhone photo, as a P3 JPEG carries it.
    static func displayP3Profile() throws -> [UInt8] {
        let path = try Fixtures.scratchDirectory("p3-profile") + "/p3.jpg"
        try Tools.vips("copy", Fixtures.photo("photos/iphone13-3024x4032.heic"), path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(bytes.withUnsafeBytes { JPEGCodec.iccProfile(of: $0) })
    }

    @Test("Display P3 runs on the matrix-shaper tables, within one level of lcms2 on every colour")
    func tablesMatchLCMS2() throws {
        let transform = try ColourTransform(toSRGBFrom: try Self.displayP3Profile())
        #expect(transform.usesMatrixShaperTables)
        // Every 4th code per channel and the extremes: 262,144 colours.
        let codes = Array(stride(from: 0, through: 255, by: 4)) + [255]
        var pixels: [UInt8] = []
        for r in codes { for g in codes { for b in codes { pixels += [UInt8(r), UInt8(g), UInt8(b)] } } }
        let reference = transform.convertedByLCMS2(pixels)
        var ours = pixels
        ours.withUnsafeMutableBufferPointer { transform.apply($0.baseAddress!, count: pixels.count / 3) }
        var worst = 0
        var total = 0
        for index in pixels.indices {
            let difference = abs(Int(ours[index]) - Int(reference[index]))
            worst = max(worst, difference)
            total += difference
        }
        #expect(worst <= 1, "worst \(worst)")
        #expect(Double(total) / Double(pixels.count) < 0.05, "mean \(Double(total) / Double(pixels.count))")
        // White stays white; a P3 orange becomes a more saturated sRGB one (P3 is wider).
        #expect(Array(ours[(ours.count - 3)...]) == [255, 255, 255])
        var orange: [UInt8] = [200, 100, 50]
        orange.withUnsafeMutableBufferPointer { transform.apply($0.baseAddress!, count: 1) }
        #expect(orange[0] > 200 && orange[2] < 50, "\(orange)")
    }

    @Test("a profile lcms2 cannot read, or a CMYK one, is refused with a reason")
    func badProfilesAreRefused() throws {
        var profile = try Self.displayP3Profile()
        profile.removeLast(profile.count / 2)
        #expect(throws: ColourTransform.Failure.self) { try ColourTransform(toSRGBFrom: profile) }
        #expect(throws: ColourTransform.Failure.self) { try ColourTransform(toSRGBFrom: Array("not a profile".utf8)) }
        let directory = try Fixtures.scratchDirectory("cmyk-profile")
        try Tools.vips("black", directory + "/b.v", "8", "8", "--bands", "3")
        try Tools.vips("icc_export", directory + "/b.v", directory + "/cmyk.jpg", "--output-profile", "cmyk")
        let cmyk = try Data(contentsOf: URL(fileURLWithPath: directory + "/cmyk.jpg"))
        let cmykProfile = try #require(cmyk.withUnsafeBytes { JPEGCodec.iccProfile(of: $0) })
        do {
            _ = try ColourTransform(toSRGBFrom: cmykProfile)
            Issue.record("a CMYK profile was accepted")
        } catch {
            #expect(error.message == "not an RGB profile")
        }
    }
}
