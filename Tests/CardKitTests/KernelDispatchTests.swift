import FastPath
import Foundation
import ImageCore
import PhotoSources
import TestSupport
import Testing
import Thumbnails
import VipsKit

@testable import CardKit

/// Every dispatch target of the kernels writes the same bytes: kernels on random pictures
/// of awkward sizes, and whole cards and thumbnails on the corpus, with the baseline forced
/// and with AVX2. (Serialized: this is the only suite that forces a target, and it must
/// know which one ran.)
@Suite(
    .libvips, .serialized,
    .enabled(if: PixelKernels.target == .avx2, "this CPU has no AVX2: there is only one target to compare"))
struct KernelDispatchTests {
    /// `body` run once per target, the results in target order.
    static func onEachTarget<T>(_ body: () throws -> T) rethrows -> [T] {
        defer { PixelKernels.force(nil) }
        return try PixelKernels.Target.allCases.map { target in
            #expect(PixelKernels.force(target))
            #expect(PixelKernels.target == target)
            return try body()
        }
    }

    /// Whether the targets' pictures are equal (a Bool, so a failure does not print megabytes).
    static func same(_ images: [MemoryImage]) -> Bool { images.allSatisfy { $0 == images[0] } }

    /// A reproducible noisy picture (a linear congruential generator, seeded).
    static func noise(width: Int, height: Int, seed: UInt64) -> MemoryImage {
        var state = seed
        let pixels = (0..<(width * height * 3)).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        return MemoryImage(width: width, height: height, pixels: pixels)
    }

    @Test("resampling, colour and blend: the same bytes on baseline and AVX2, sizes 1 to 70 and boxes")
    func kernelsAgree() {
        for (index, (width, height, outWidth, outHeight)) in [
            (1, 1, 3, 2), (7, 5, 2, 3), (17, 33, 16, 15), (70, 41, 23, 69), (64, 64, 64, 64), (333, 97, 41, 13),
            (40, 30, 111, 87), (129, 3, 17, 1),
        ].enumerated() {
            let image = Self.noise(width: width, height: height, seed: UInt64(index + 1))
            let resized = Self.onEachTarget { PixelKernels.resize(image, width: outWidth, height: outHeight) }
            #expect(Self.same(resized), "resize \(width)x\(height) -> \(outWidth)x\(outHeight)")
            let box = (
                x: Double(width) * 0.13, y: Double(height) * 0.21, width: Double(width) * 0.7,
                height: Double(height) * 0.6
            )
            let boxed = Self.onEachTarget { PixelKernels.resample(image, box: box, width: outWidth, height: outHeight) }
            #expect(Self.same(boxed), "box of \(width)x\(height) -> \(outWidth)x\(outHeight)")
            let coloured = Self.onEachTarget { () -> MemoryImage in
                var copy = image
                PixelKernels.colour(
                    &copy, matrix: [0.393, 0.769, 0.189, 0.349, 0.686, 0.168, 0.272, 0.534, 0.131], contrast: 1.12,
                    lift: -9.5, vignette: 0.8)
                return copy
            }
            #expect(Self.same(coloured), "colour \(width)x\(height)")
            #expect(coloured[0].pixels != image.pixels, "the effect changed the picture")
            let paint = Self.noise(width: width, height: height, seed: 99)
            let alpha = Self.noise(width: width * height, height: 1, seed: 7).pixels.prefix(width * height)
            let blended = Self.onEachTarget { () -> MemoryImage in
                var copy = image
                PixelKernels.blend(&copy, colour: paint, alpha: Array(alpha))
                return copy
            }
            #expect(Self.same(blended), "blend \(width)x\(height)")
            let halved = Self.onEachTarget { PixelKernels.halved(image, times: 2) }
            #expect(Self.same(halved), "halve \(width)x\(height)")
            // Turned 1 to 359 degrees about the middle, past the edges (the background blends in).
            for degrees in [1.0, 17.5, 90.25, 211, 359] {
                let radians = degrees * .pi / 180
                let (c, s) = (cos(radians), sin(radians))
                let (cx, cy) = (Double(width) / 2, Double(height) / 2)
                let turned = Self.onEachTarget {
                    PixelKernels.turned(
                        image, width: outWidth, height: outHeight,
                        inverse: (
                            a: c, b: s, c: -c * Double(outWidth) / 2 - s * Double(outHeight) / 2 + cx,
                            d: -s, e: c, f: s * Double(outWidth) / 2 - c * Double(outHeight) / 2 + cy
                        ), background: [12, 200, 99])
                }
                #expect(Self.same(turned), "turn \(degrees) of \(width)x\(height) -> \(outWidth)x\(outHeight)")
            }
        }
    }

    @Test(
        "cards and thumbnails of the corpus: byte-identical on both targets",
        .enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func cardsAgree() throws {
        let catalogue = try FrameCatalogue(directory: Fixtures.root.path + "/frames")
        let cases: [(String, CardSpec)] = [
            ("photos/jolla-3264x2448.jpg", CardSpec(frame: "travel/airmail", effect: ColourEffect(.vintage))),
            ("photos/phone-4032x3024.jpg", CardSpec(effect: ColourEffect(.sepia, strength: 0.6))),
            ("orientation/Portrait_6.jpg", CardSpec(placement: .crop(x: 10, y: 400, width: 1180, height: 837))),
            (
                "orientation/Landscape_3.jpg",
                CardSpec(placement: .transform(scale: 1.4, rotation: 90, offsetX: 0.1, offsetY: -0.05))
            ),
            (
                "photos/phone-4032x3024.jpg",
                CardSpec(
                    placement: .transform(scale: 1.3, rotation: -23.5, offsetX: 0.05, offsetY: 0),
                    frame: "travel/airmail", effect: ColourEffect(.sepia))
            ),
            (
                "photos/iphone13-3024x4032.heic",
                CardSpec(placement: .transform(scale: 1, rotation: 12, offsetX: 0, offsetY: 0.1))
            ),
        ]
        for (photo, spec) in cases {
            let data = try ImageData(contentsOfFile: Fixtures.photo(photo), maxBytes: 64 << 20)
            let cards = try Self.onEachTarget {
                try CardRenderer(catalogue: catalogue).render(photo: data, spec: spec, specFile: photo)
            }
            #expect(cards[0].path == .fast)
            #expect(cards[0].front.print == cards[1].front.print, "\(photo): print")
            #expect(cards[0].front.sample == cards[1].front.sample, "\(photo): sample")
            #expect(cards[0].front.small == cards[1].front.small, "\(photo): small")
            let thumbnails = try Self.onEachTarget { try Thumbnailer().thumbnail(of: data, width: 200) }
            // An HEIC's thumbnail is libvips's (it starts from the file's embedded preview).
            #expect(thumbnails[0].path == (photo.hasSuffix(".heic") ? .general : .fast))
            #expect(thumbnails[0].data == thumbnails[1].data, "\(photo): thumbnail")
        }
    }
}
