import CardKit
import Foundation
import ImageCore
import PhotoSources
import RenderCache
import TestSupport
import Testing

@testable import CardPipeline

/// Frame art is rasterised once per cache, not once per process: a fresh catalogue (what a
/// new process has) on a warm cache renders the same card without rasterising; other art
/// bytes or a damaged stored copy are rasterised again.
@Suite(.libvips)
struct FrameArtCacheTests {
    /// A 1800 x 1200 synthetic photo (large enough for the fast path's reduction).
    static func photo(_ directory: String) throws -> ImageData {
        let path = directory + "/photo.jpg"
        try Synthetic.image(path, width: 1800, height: 1200, bands: 3) { x, y in
            [UInt8(x % 256), UInt8(y % 256), UInt8((x + y) % 256)]
        }
        return try ImageData(contentsOfFile: path, maxBytes: 64 << 20)
    }

    static let spec = CardSpec(frame: "travel/airmail", format: CardFormat(bleed: 3))

    /// A card with the airmail frame by a fresh catalogue of `frames` on the cache in `cache`.
    static func card(_ photo: ImageData, frames: String, cache: String) throws -> (
        card: RenderedCard, rasterisations: Int
    ) {
        let catalogue = try FrameCatalogue(directory: frames)
        catalogue.keepArt(in: CachedFrameArt(cache: try ContentStore(directory: cache)))
        let card = try CardRenderer(catalogue: catalogue).render(
            photo: photo, spec: spec, specFile: "art")
        return (card, catalogue.rasterisations)
    }

    @Test("a fresh catalogue on a warm cache renders the same card without rasterising")
    func secondProcessLoadsTheArt() throws {
        let directory = try Fixtures.scratchDirectory()
        let photo = try Self.photo(directory)
        let frames = Fixtures.root.path + "/frames"
        let first = try Self.card(photo, frames: frames, cache: directory + "/cache")
        // The art at two sizes: the print's and the sample's.
        #expect(first.rasterisations == 2)
        let second = try Self.card(photo, frames: frames, cache: directory + "/cache")
        #expect(second.rasterisations == 0)
        #expect(second.card.front.print == first.card.front.print)
        #expect(second.card.front.small == first.card.front.small)
        // The general path blends the stored art too, and gets the picture it got before.
        let general = try FrameCatalogue(directory: frames)
        general.keepArt(in: CachedFrameArt(cache: try ContentStore(directory: directory + "/cache")))
        let plain = try CardRenderer(
            catalogue: try FrameCatalogue(directory: frames), settings: .init(engine: .general)
        )
        .render(photo: photo, spec: Self.spec, specFile: "art")
        let stored = try CardRenderer(catalogue: general, settings: .init(engine: .general))
            .render(photo: photo, spec: Self.spec, specFile: "art")
        #expect(general.rasterisations == 0)
        #expect(stored.front.print == plain.front.print)
    }

    @Test("other art bytes are rasterised anew; a damaged stored copy is replaced, never used")
    func changesAndDamageAreSeen() throws {
        let directory = try Fixtures.scratchDirectory()
        let photo = try Self.photo(directory)
        let frames = directory + "/frames"
        try FileManager.default.copyItem(atPath: Fixtures.root.path + "/frames", toPath: frames)
        let cache = directory + "/cache"
        let first = try Self.card(photo, frames: frames, cache: cache)
        // The art at two sizes: the print's and the sample's.
        #expect(first.rasterisations == 2)

        // The same frame with one colour changed in its SVG: new bytes, new key.
        let svg = frames + "/travel/airmail.svg"
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        let colour = try #require(text.firstMatch(of: /#[0-9a-fA-F]{6}/)).output
        try text.replacingOccurrences(of: String(colour), with: "#00ff00").write(
            toFile: svg, atomically: true, encoding: .utf8)
        let edited = try Self.card(photo, frames: frames, cache: cache)
        #expect(edited.rasterisations == 2)
        #expect(edited.card.front.print != first.card.front.print)

        // Damage every stored art entry (the largest files); the card is still right.
        let store = cache
        let entries = try FileManager.default.subpathsOfDirectory(atPath: store).map { store + "/" + $0 }
            .filter { (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int ?? 0) ?? 0 > 1_000_000 }
        #expect(entries.count >= 2)
        for entry in entries {
            let handle = try #require(FileHandle(forUpdatingAtPath: entry))
            try handle.seek(toOffset: 600_000)
            try handle.write(contentsOf: Data([0x5a, 0xa5, 0x5a]))
            try handle.close()
        }
        let again = try Self.card(photo, frames: frames, cache: cache)
        #expect(again.rasterisations == 2)
        #expect(again.card.front.print == edited.card.front.print)
    }
}
