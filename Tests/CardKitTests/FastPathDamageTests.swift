import CardKit
import FastPath
import Foundation
import ImageCore
import PhotoSources
import TestSupport
import Testing

/// Damaged and hostile JPEGs on the fast path behave as on the general path: an error
/// naming the file (a warning and a card under `--lenient`), limits checked from the header
/// first, and never a crash (libjpeg's `exit()` is replaced by a jump back).
@Suite(.libvips) struct FastPathDamageTests {
    static func photo(_ width: Int = 480, _ height: Int = 320) throws -> Data {
        let path = try Fixtures.scratchDirectory("jpeg") + "/p.jpg"
        try Synthetic.image(path, width: width, height: height, bands: 3) { x, y in
            [UInt8((x * 7) % 256), UInt8((y * 3) % 256), UInt8((x + y) % 256)]
        }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    func render(_ bytes: Data, damage: DecodePolicy.Damage, engine: RenderEngine = .auto) throws
        -> RenderedCard
    {
        let renderer = CardRenderer(
            catalogue: nil, settings: .init(policy: DecodePolicy(damage: damage), engine: engine))
        return try renderer.render(
            photo: ImageData(copying: bytes, name: "broken.jpg"), spec: CardSpec(), specFile: "s")
    }

    @Test func aTruncatedJPEGIsDamagedOrAWarningOnBothPaths() throws {
        let whole = try Self.photo()
        let truncated = whole.prefix(whole.count * 2 / 3)
        for engine in RenderEngine.allCases {
            #expect(throws: ImageInputError.self) { try render(truncated, damage: .fail, engine: engine) }
            do {
                _ = try render(truncated, damage: .fail, engine: engine)
            } catch let error as ImageInputError {
                guard case .damaged(let file, _) = error else {
                    Issue.record("\(engine): expected damaged, got \(error)")
                    continue
                }
                #expect(file == "broken.jpg")
            }
            let card = try render(truncated, damage: .warn, engine: engine)
            #expect(card.warning?.hasPrefix("broken.jpg: damaged image data, rendered what decodes") == true)
            #expect(card.path == (engine == .auto ? .fast : .general))
        }
    }

    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func theCorpusDamagedJPEGIsRefusedOnTheFastPath() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Fixtures.photo("broken/corrupted-3648x2736.jpg")))
        #expect {
            try render(bytes, damage: .fail)
        } throws: { error in
            if case .damaged(let file, _) = error as? ImageInputError { return file == "broken.jpg" }
            return false
        }
    }

    /// Hundreds of damaged variants (bytes overwritten, cut, markers broken) through the
    /// decoder: each one decodes or fails with an error; the process never dies.
    @Test func corruptedBytesNeverCrash() throws {
        let whole = [UInt8](try Self.photo(96, 64))
        var generator = SplitMix(seed: 42)
        var failures = 0
        for round in 0..<300 {
            var bytes = whole
            switch round % 3 {
            case 0:
                for _ in 0..<(1 + Int(generator.next() % 8)) {
                    bytes[2 + Int(generator.next() % UInt64(bytes.count - 2))] = UInt8(generator.next() % 256)
                }
            case 1:
                bytes = Array(bytes.prefix(2 + Int(generator.next() % UInt64(bytes.count - 2))))
            default:
                let at = Int(generator.next() % UInt64(bytes.count - 1))
                bytes[at] = 0xFF
                bytes[at + 1] = UInt8(0xC0 + generator.next() % 0x3F)
            }
            for strict in [true, false] {
                let decoded = bytes.withUnsafeBytes { raw in
                    Result { () throws(JPEGCodec.Failure) in try JPEGCodec.decode(raw, scale: 1, strict: strict) }
                }
                if case .failure(let failure) = decoded {
                    failures += 1
                    #expect(!failure.description.isEmpty)
                }
            }
        }
        #expect(failures > 50, "the damage must really have been damage")
    }

    /// Limits are checked from the header before any decoding, on the fast path too.
    @Test func thePixelLimitComesFirst() throws {
        let bytes = try Self.photo()
        let renderer = CardRenderer(catalogue: nil, settings: .init(policy: DecodePolicy(maxPixels: 1000)))
        #expect(throws: ImageInputError.tooManyPixels(file: "p", width: 480, height: 320, limit: 1000)) {
            try renderer.render(photo: ImageData(copying: bytes, name: "p"), spec: CardSpec(), specFile: "s")
        }
    }
}

/// The encoder owns its output buffer: an encode that fails after the buffer has grown
/// frees the live buffer once (libjpeg-turbo's memory destination would have freed the
/// first buffer twice), and the next encodes are whole.
@Suite struct JPEGEncodeFailureTests {
    @Test func anEncodeFailingAfterItsBufferGrewIsAnError() throws {
        let (width, height) = (1200, 900)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var state: UInt32 = 1
        for index in pixels.indices {
            state = state &* 1_664_525 &+ 1_013_904_223  // noise: it compresses badly
            pixels[index] = UInt8(truncatingIfNeeded: state >> 24)
        }
        let image = MemoryImage(width: width, height: height, pixels: pixels)
        let whole = try JPEGCodec.encode(image, quality: 95, fullChroma: true, optimize: false)
        #expect(whole.count > 400_000, "the first guess (a tenth of the pixels) had to grow: \(whole.count)")
        for _ in 0..<20 {
            #expect(throws: JPEGCodec.Failure.self) {
                try JPEGCodec.encode(
                    image, quality: 95, fullChroma: true, optimize: false, maxBytes: whole.count - 1000)
            }
        }
        #expect(try JPEGCodec.encode(image, quality: 95, fullChroma: true, optimize: false) == whole)
    }
}
