import FastPath
import Foundation
import ImageCore
import PhotoSources
import TestSupport
import Testing
import VipsKit

@testable import CardKit

/// The streaming fast executor (rows from libjpeg-turbo through the resampler's ring, the
/// effect and the blend into the print's encoder) writes what the in-memory one writes, and
/// takes exactly the plans it can: an upright-stored photo whose window is one box of it.
@Suite(.libvips, .enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
struct StreamingExecutorTests {
    /// A plan that went to the general executor where the test wants the fast one.
    struct NotFast: Error {}

    static let catalogue = try? FrameCatalogue(directory: Fixtures.root.path + "/frames")

    /// The plan of `spec` on `photo`, its fast source, and the renderer.
    static func plan(_ photo: ImageData, _ spec: CardSpec) throws -> (CardPlan, FastJPEGSource, FastCardRenderer) {
        let settings = CardSettings()
        let header = try photo.header(policy: settings.policy)
        let frame = spec.frame.flatMap { catalogue?.frame($0) }
        let plan = try CardPlan(
            spec: spec, photo: photo, header: header, frame: frame, effect: spec.effect ?? .normal,
            art: { layout in
                try frame.map {
                    try catalogue!.overlay(
                        $0, width: layout.trim.width, height: layout.trim.height, bleed: layout.bleed)
                }
            }, settings: settings, specFile: "stream")
        guard case .fast(let source) = plan.executor else { throw NotFast() }
        return (plan, source, FastCardRenderer(settings: settings))
    }

    @Test("a crop, an effect and a frame: the same bytes streamed as in memory")
    func cropIsByteIdentical() throws {
        let photo = try ImageData(contentsOfFile: Fixtures.photo("photos/jolla-3264x2448.jpg"), maxBytes: 64 << 20)
        for spec in [
            CardSpec(placement: .crop(x: 400, y: 300, width: 2400, height: 1702), effect: ColourEffect(.vintage)),
            CardSpec(
                placement: .crop(x: 0, y: 0, width: 1520, height: 1000), frame: "travel/airmail",
                effect: ColourEffect(.sepia), format: CardFormat(bleed: 3)),
        ] {
            let (plan, source, fast) = try Self.plan(photo, spec)
            let streamed = try #require(try fast.streamed(plan, photo: source))
            let (pixels, _) = try fast.pixels(plan, photo: source)
            #expect(streamed.print == (try fast.encodePrint(pixels, plan: plan)))
            #expect(streamed.kept == nil)
        }
    }

    @Test("the rows kept for the sample while streaming are the decode's rows, read or skipped by the print")
    func keptRowsAreTheDecodes() throws {
        let photo = try ImageData(contentsOfFile: Fixtures.photo("photos/jolla-3264x2448.jpg"), maxBytes: 64 << 20)
        let (plan, source, fast) = try Self.plan(
            photo, CardSpec(placement: .crop(x: 400, y: 300, width: 2400, height: 1702)))
        // Rows before, across and after the print's own.
        for keeping in [0..<40, 100..<900, 1100..<1224, 0..<1224] {
            let streamed = try #require(try fast.streamed(plan, photo: source, keeping: keeping))
            let decoded = try source.decodeUpright(shrink: plan.dctShrink, rows: nil, policy: .default)
            let kept = try #require(streamed.kept)
            #expect(streamed.top == keeping.lowerBound)
            #expect(kept.height == min(keeping.upperBound, decoded.image.height) - keeping.lowerBound)
            #expect(kept == decoded.image.cropped(x: 0, y: streamed.top, width: kept.width, height: kept.height))
            let (pixels, _) = try fast.pixels(plan, photo: source)
            #expect(streamed.print == (try fast.encodePrint(pixels, plan: plan)), "\(keeping)")
        }
    }

    @Test("a cover streams as one box of the photo: the in-memory picture within round-off")
    func coverMatches() throws {
        for name in ["photos/phone-4032x3024.jpg", "photos/nokia-8.3-4608x1976.jpg", "orientation/Landscape_1.jpg"] {
            let photo = try ImageData(contentsOfFile: Fixtures.photo(name), maxBytes: 64 << 20)
            let (plan, source, fast) = try Self.plan(photo, CardSpec(frame: "travel/airmail"))
            let streamed = try #require(try fast.streamed(plan, photo: source), "\(name) streams")
            let (pixels, _) = try fast.pixels(plan, photo: source)
            let a = try Fixtures.load(Data(streamed.print))
            let b = try Fixtures.load(
                Data(try JPEGCodec.encode(pixels, quality: 92, fullChroma: true, optimize: false)))
            #expect(a.width == b.width && a.height == b.height)
            let difference = try a.meanAbsoluteDifference(to: b)
            #expect(difference < 0.5, "\(name): mean difference \(difference)")
        }
    }

    @Test("photos stored turned, turns and covers that show the background stay in memory")
    func whatDoesNotStream() throws {
        let turned = try ImageData(contentsOfFile: Fixtures.photo("orientation/Portrait_6.jpg"), maxBytes: 64 << 20)
        let (plan, source, fast) = try Self.plan(turned, CardSpec())
        #expect(try fast.streamed(plan, photo: source) == nil)
        let upright = try ImageData(contentsOfFile: Fixtures.photo("photos/jolla-3264x2448.jpg"), maxBytes: 64 << 20)
        for placement in [
            PhotoPlacement.transform(scale: 1, rotation: 90, offsetX: 0, offsetY: 0),
            .transform(scale: 0.7, rotation: 0, offsetX: 0, offsetY: 0),
        ] {
            let (plan, source, fast) = try Self.plan(upright, CardSpec(placement: placement))
            #expect(try fast.streamed(plan, photo: source) == nil, "\(placement)")
        }
    }
}
