import Foundation
import ImageCore
import PhotoSources
import TestSupport
import Testing
import Thumbnails
import VipsKit

/// Boxes (`ThumbnailBox`): the geometry over its whole input space, and the pixels of each
/// fit on both executors against libvips's own `thumbnail --crop`.
@Suite(.libvips) struct ThumbnailBoxTests {
    /// Every fit, gravity, density and side, on photos of every shape, with and without
    /// `enlarge`: the crop stays in the photo, nothing is enlarged unasked, `cover` and
    /// `fill` give the box (or the box shrunk in its proportions), `contain` pads to it,
    /// and a width alone is the GD formula.
    @Test func theGeometryHoldsOverTheWholeInputSpace() {
        var random = SplitMix(seed: 31)
        let fits = ThumbnailBox.Fit.allCases
        let gravities: [ThumbnailBox.Gravity] =
            Array(Set(ThumbnailBox.Gravity.names.values)).sorted { "\($0)" < "\($1)" } + [
                .focus(x: 0, y: 0), .focus(x: 1, y: 1), .focus(x: 0.3, y: 0.8),
            ]
        func side(_ limit: Int) -> Int {
            // Small and large sides alike: 1, 2, ..., and up to `limit`.
            Int.random(in: 0..<3, using: &random) == 0
                ? Int.random(in: 1...4, using: &random) : Int.random(in: 1...limit, using: &random)
        }
        for index in 0..<20_000 {
            let (sw, sh) = (side(9000), side(9000))
            let width: Int? = index % 7 == 0 ? nil : side(4096)
            let height: Int? = width == nil || index % 5 == 0 ? side(4096) : (index % 3 == 0 ? nil : side(4096))
            let dpr = [1, 1.5, 2, 3, 4, Double.random(in: 1...4, using: &random)][index % 6]
            let enlarge = index % 4 == 0
            let box = ThumbnailBox(
                width: width, height: height, fit: fits[index % fits.count],
                gravity: gravities[index % gravities.count], background: nil, dpr: dpr
            ).canonical
            let focus = (x: Double.random(in: 0...1, using: &random), y: Double.random(in: 0...1, using: &random))
            let g = box.geometry(sourceWidth: sw, sourceHeight: sh, enlarge: enlarge, focus: focus)
            let label = "\(sw)x\(sh) \(box) enlarge \(enlarge)"
            // The crop is inside the photo.
            #expect(g.crop.x >= -1e-9 && g.crop.y >= -1e-9, "\(label)")
            #expect(g.crop.x + g.crop.width <= Double(sw) + 1e-6, "\(label)")
            #expect(g.crop.y + g.crop.height <= Double(sh) + 1e-6, "\(label)")
            #expect(g.size.width >= 1 && g.size.height >= 1 && g.canvas.width >= g.size.width, "\(label)")
            #expect(g.offset.x >= 0 && g.offset.x + g.size.width <= g.canvas.width, "\(label)")
            #expect(g.offset.y >= 0 && g.offset.y + g.size.height <= g.canvas.height, "\(label)")
            // Nothing enlarged unasked (a pixel of rounding).
            if !enlarge {
                #expect(Double(g.size.width) <= g.crop.width + 1, "\(label)")
                #expect(Double(g.size.height) <= g.crop.height + 1, "\(label)")
            }
            let wanted = (
                width.map { max(1, Int((Double($0) * dpr).rounded())) },
                height.map { max(1, Int((Double($0) * dpr).rounded())) }
            )
            guard let boxWidth = wanted.0, let boxHeight = wanted.1 else {
                if let boxWidth = wanted.0, dpr == 1 {
                    let gd = Thumbnailer.outputSize(
                        sourceWidth: sw, sourceHeight: sh, width: boxWidth, enlarge: enlarge)
                    #expect(g.size == gd, "\(label)")
                }
                continue
            }
            switch box.fit {
            case .cover, .fill, .contain:
                if enlarge || (sw >= boxWidth && sh >= boxHeight) {
                    #expect(g.canvas == (boxWidth, boxHeight), "\(label)")
                }
                // The box's proportions are kept to a pixel when it had to shrink.
                let ratio = Double(boxWidth) / Double(boxHeight)
                if g.canvas.width > 1 && g.canvas.height > 1 {
                    #expect(
                        abs(Double(g.canvas.width) - ratio * Double(g.canvas.height)) <= max(1, ratio) + 0.5,
                        "\(label)")
                }
            case .inside:
                #expect(g.size.width <= boxWidth && g.size.height <= boxHeight, "\(label)")
            }
        }
    }

    @Test func gravityAndFocusPlaceTheCrop() {
        let box = ThumbnailBox(width: 100, height: 100, fit: .cover)
        func crop(_ gravity: ThumbnailBox.Gravity) -> ThumbnailGeometry.Box {
            var box = box
            box.gravity = gravity
            return box.geometry(sourceWidth: 400, sourceHeight: 200, enlarge: false).crop
        }
        #expect(crop(.centre) == .init(x: 100, y: 0, width: 200, height: 200))
        #expect(crop(.west).x == 0 && crop(.east).x == 200 && crop(.northEast).x == 200)
        // A focal point is centred as far as the crop can move.
        #expect(crop(.focus(x: 0.5, y: 0.5)).x == 100)
        #expect(crop(.focus(x: 0.3, y: 0.5)).x == 20)
        #expect(crop(.focus(x: 0.01, y: 0.5)).x == 0)
        #expect(crop(.focus(x: 1, y: 0)).x == 200)
        // contain places the photo on the canvas by gravity.
        var contain = ThumbnailBox(width: 100, height: 100, fit: .contain, gravity: .north)
        #expect(contain.geometry(sourceWidth: 200, sourceHeight: 400, enlarge: false).offset == (25, 0))
        contain.gravity = .southEast
        #expect(contain.geometry(sourceWidth: 400, sourceHeight: 200, enlarge: false).offset == (0, 50))
    }

    @Test func densityNeverEnlargesPastThePhoto() {
        // A 300x200 photo asked at 200x200 cover, dpr 2: 400x400 would enlarge; the box
        // shrinks in its proportions to the photo's height.
        let box = ThumbnailBox(width: 200, height: 200, fit: .cover, dpr: 2)
        let g = box.geometry(sourceWidth: 300, sourceHeight: 200, enlarge: false)
        #expect(g.canvas == (200, 200))
        let wide = ThumbnailBox(width: 100, dpr: 2).geometry(sourceWidth: 150, sourceHeight: 100, enlarge: false)
        #expect(wide.size == (150, 100))
        let asked = ThumbnailBox(width: 100, dpr: 2).geometry(sourceWidth: 1500, sourceHeight: 1000, enlarge: false)
        #expect(asked.size == (200, 133))
    }

    /// A width alone keeps every key it had: its recipe is the one made before boxes.
    @Test func aWidthAloneIsTheGDBox() {
        #expect(ThumbnailBox(width: 200).isWidthOnly)
        #expect(ThumbnailBox(width: 200, fit: .cover).isWidthOnly)
        #expect(ThumbnailBox(width: 200, gravity: .north, background: [1, 2, 3]).isWidthOnly)
        // The density is folded into the width: the same pixels, the same entry.
        #expect(ThumbnailBox(width: 200, dpr: 2).isWidthOnly)
        #expect(ThumbnailBox(width: 200, dpr: 2).canonical == ThumbnailBox(width: 400))
        #expect(!ThumbnailBox(width: 200, height: 100, fit: .cover, dpr: 2).canonical.isWidthOnly)
        #expect(!ThumbnailBox(width: 200, height: 100).isWidthOnly)
        #expect(!ThumbnailBox(height: 100).isWidthOnly)
    }

    /// `cover` on the fast path and the general one against `vips thumbnail --crop centre`,
    /// on a panorama and a portrait stored turned (EXIF 6).
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func coverMatchesVipsThumbnailCrop() throws {
        let scratch = try Fixtures.scratchDirectory()
        for photo in ["photos/nokia-8.3-4608x1976.jpg", "orientation/Portrait_6.jpg"] {
            let path = Fixtures.photo(photo)
            let reference = scratch + "/reference.png"
            try Tools.vips("thumbnail", path, reference, "300", "--height", "300", "--crop", "centre")
            let expected = try Fixtures.load(reference)
            let data = try ImageData(contentsOfFile: path, maxBytes: 1 << 30)
            for engine in [RenderEngine.auto, .general] {
                let made = try Thumbnailer(engine: engine).thumbnail(
                    of: data, request: ThumbnailRequest(box: ThumbnailBox(width: 300, height: 300, fit: .cover)))
                #expect(made.width == 300 && made.height == 300)
                #expect(made.path == (engine == .auto ? .fast : .general), "\(photo)")
                let image = try Fixtures.load(made.data)
                #expect(try image.meanAbsoluteDifference(to: expected) < 3, "\(photo) \(engine)")
            }
        }
    }

    /// `contain` pads with transparency where the format has alpha, with the asked colour
    /// (or white) where it has not; the photo keeps its pixels.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func containPadsWithTransparencyOrTheBackground() throws {
        let data = try ImageData(contentsOfFile: Fixtures.photo("photos/nokia-8.3-4608x1976.jpg"), maxBytes: 1 << 30)
        for engine in [RenderEngine.auto, .general] {
            let thumbnailer = Thumbnailer(engine: engine)
            let box = ThumbnailBox(width: 300, height: 300, fit: .contain)
            let png = try Fixtures.load(
                thumbnailer.thumbnail(of: data, request: ThumbnailRequest(box: box)).data)
            #expect(png.width == 300 && png.height == 300 && png.bands == 4)
            #expect(try png.pixel(x: 150, y: 5)[3] == 0, "\(engine): the padding is transparent")
            #expect(try png.pixel(x: 150, y: 150)[3] == 255, "\(engine): the photo is opaque")
            var red = box
            red.background = [255, 0, 0]
            red.gravity = .north
            let jpeg = try Fixtures.load(
                thumbnailer.thumbnail(
                    of: data, request: ThumbnailRequest(box: red), options: EncodeOptions(format: .jpeg)
                ).data)
            #expect(jpeg.width == 300 && jpeg.height == 300)
            let bottom = try jpeg.pixel(x: 150, y: 290)
            #expect(bottom[0] > 240 && bottom[1] < 15 && bottom[2] < 15, "\(engine): red below a north photo")
            let top = try jpeg.pixel(x: 150, y: 5)
            #expect(!(top[0] > 240 && top[1] < 15), "\(engine): the photo is at the top")
        }
    }

    /// `attention` keeps the interesting part: the astronaut's face in a square crop of a
    /// wide canvas with her at the right edge.
    @Test func attentionFindsTheSubject() throws {
        let scratch = try Fixtures.scratchDirectory()
        let path = Fixtures.root.path + "/Tests/faces/astronaut-512x512.jpg"
        let wide = scratch + "/wide.jpg"
        // The photo on the right of a grey canvas three times as wide.
        try Tools.vips("embed", path, wide, "1024", "0", "1536", "512", "--extend", "background", "--background", "128")
        let data = try ImageData(contentsOfFile: wide, maxBytes: 1 << 30)
        for engine in [RenderEngine.auto, .general] {
            let box = ThumbnailBox(width: 200, height: 200, fit: .cover, gravity: .attention)
            let made = try Thumbnailer(engine: engine).thumbnail(of: data, request: ThumbnailRequest(box: box))
            let image = try Fixtures.load(made.data)
            // The grey canvas is flat; the crop on the photo is not.
            let centre = try Fixtures.load(
                Thumbnailer(engine: engine).thumbnail(
                    of: data, request: ThumbnailRequest(box: ThumbnailBox(width: 200, height: 200, fit: .cover))
                ).data)
            #expect(try centre.pixel(x: 100, y: 100).allSatisfy { abs($0 - 128) < 4 }, "the centre is the canvas")
            #expect(try image.pixel(x: 100, y: 100).contains { abs($0 - 128) > 10 }, "\(engine): on the photo")
        }
    }
}
