import FastPath
import Foundation
import ImageCore
import PhotoSources
import TestSupport
import Testing
import Thumbnails

@testable import CardKit

/// The bytes of a synthetic fast-path card and thumbnail are pinned per fast-executor
/// revision: a kernel or encoder change that alters any output byte fails here until
/// `RenderPath.fast.revision` is bumped (which changes every cache key) and the new digests
/// are pinned under the new revision. The photo is made in the test from a formula, so the
/// digests depend only on cardrender, libjpeg-turbo and libpng.
@Suite(.libvips)
struct ExecutorRevisionTests {
    /// FNV-1a 64 of `bytes`, hex (a pin, not a security digest).
    static func digest(_ bytes: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    /// A 2400 x 1600 photo with gradients, rings and hard edges, as a q95 JPEG.
    static func photo() throws -> ImageData {
        let (width, height) = (2400, 1600)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 3
                let ring = ((x - 1200) * (x - 1200) + (y - 800) * (y - 800)) / 2000
                pixels[index] = UInt8((x * 255) / width)
                pixels[index + 1] = UInt8(truncatingIfNeeded: ring * 9)
                pixels[index + 2] = (x / 150 + y / 150) % 2 == 0 ? 230 : UInt8((y * 255) / height)
            }
        }
        let image = MemoryImage(width: width, height: height, pixels: pixels)
        let jpeg = try JPEGCodec.encode(image, quality: 95, fullChroma: true, optimize: true)
        return ImageData(copying: Data(jpeg), name: "synthetic.jpg")
    }

    /// The pinned digests (print, sample, small, thumbnail) per fast-executor revision.
    static let pinned: [Int: [String]] = [
        2: ["c2b8fb578fb1f649", "1ce82c3a6cb28d10", "31667160c4b92b71", "c950e5e61a68b352"],
        3: ["c2b8fb578fb1f649", "1ce82c3a6cb28d10", "31667160c4b92b71", "c950e5e61a68b352"],
        4: ["c2b8fb578fb1f649", "1ce82c3a6cb28d10", "31667160c4b92b71", "c950e5e61a68b352"],
        5: ["c2b8fb578fb1f649", "1ce82c3a6cb28d10", "31667160c4b92b71", "c950e5e61a68b352"],
        6: ["f526f5310902b31b", "b0a07f94d0841de5", "b6215d91a9cad99b", "c950e5e61a68b352"],
        // The print unchanged; the sample drawn from the photo at its own size.
        7: ["f526f5310902b31b", "360231597b400ccc", "3e49e422039c7cc4", "c950e5e61a68b352"],
        // The same JPEG bytes; an HEIF's large thumbnails moved to the fast executor.
        8: ["f526f5310902b31b", "360231597b400ccc", "3e49e422039c7cc4", "c950e5e61a68b352"],
    ]

    @Test("the fast executor's bytes are those pinned for its revision")
    func bytesArePinned() throws {
        let photo = try Self.photo()
        let spec = CardSpec(
            placement: .crop(x: 130, y: 90, width: 2100, height: 1490),
            effect: ColourEffect(.vintage, strength: 0.8))
        let card = try CardRenderer(catalogue: nil).render(photo: photo, spec: spec, specFile: "pinned")
        let thumbnail = try Thumbnailer().thumbnail(of: photo, width: 200)
        #expect(card.path == .fast && thumbnail.path == .fast)
        let digests = [card.front.print, card.front.sample, card.front.small, thumbnail.data].map(Self.digest)
        #expect(
            Self.pinned[RenderPath.fast.revision] == digests,
            """
            The fast executor's output changed. If that is meant, bump RenderPath.fast.revision to \
            \(RenderPath.fast.revision + 1) and pin these digests under it: \(digests)
            """)
    }
}
