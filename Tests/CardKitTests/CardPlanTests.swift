import FastPath
import Foundation
import ImageCore
import PhotoSources
import TestSupport
import Testing
import VipsKit

@testable import CardKit

/// One plan per card, resolved once: its geometry (the box in the scaled photo, sizes of the
/// three files) and its executor, decided in one place; the executors write what it says.
@Suite(.libvips)
struct CardPlanTests {
    /// A 3000 x 2000 colour JPEG made in the test.
    static func photo() throws -> ImageData {
        let image = MemoryImage(width: 3000, height: 2000, colour: [90, 140, 200])
        let jpeg = try JPEGCodec.encode(image, quality: 90, fullChroma: true, optimize: false)
        return ImageData(copying: Data(jpeg), name: "plan.jpg")
    }

    static func plan(_ spec: CardSpec, settings: CardSettings = .init()) throws -> CardPlan {
        let photo = try photo()
        let header = try photo.header(policy: settings.policy)
        return try CardPlan(
            spec: spec, photo: photo, header: header, frame: nil, effect: .normal, art: { _ in nil },
            settings: settings, specFile: "plan.card.json")
    }

    @Test("a reduced crop is a window-sized box of the photo scaled to fit it; sizes of the three files")
    func reducedCrop() throws {
        // A6 landscape at 300 dpi is 1748 x 1240; a 2114 x 1500 crop scales by ~0.8268.
        let plan = try Self.plan(CardSpec(placement: .crop(x: 443, y: 250, width: 2114, height: 1500)))
        let scale = plan.layout.photoScale
        #expect(abs(scale - (1748.0 / 2114 + 1240.0 / 1500) / 2) < 1e-12)
        // Scaled across and down so that the crop is exactly the window: one resampling.
        let (fx, fy) = (1748.0 / 2114, 1240.0 / 1500)
        #expect(plan.scaledPhoto == Size(width: Int((3000 * fx).rounded()), height: Int((2000 * fy).rounded())))
        let box = PixelRect(
            left: Int((443 * fx).rounded()), top: Int((250 * fy).rounded()), right: Int((443 * fx).rounded()) + 1748,
            bottom: Int((250 * fy).rounded()) + 1240)
        #expect(plan.source == .region(box: box, size: Size(width: 1748, height: 1240), quarters: 0, x: 0, y: 0))
        #expect(plan.printSize == Size(width: 1748, height: 1240))
        #expect(plan.sampleSize == Size(width: 800, height: 568))
        #expect(plan.smallSize == Size(width: 200, height: 142))
        guard case .fast = plan.executor else {
            Issue.record("a colour JPEG with a crop goes to the fast executor")
            return
        }
        // 3000 x 2000 at 1/2 is 1500 x 1000: not enough for the scaled 2480 x 1653.
        #expect(plan.dctShrink == 1)
        // The card the fast executor renders has the plan's sizes.
        let card = try CardRenderer(catalogue: nil).render(
            photo: try Self.photo(), spec: CardSpec(placement: .crop(x: 443, y: 250, width: 2114, height: 1500)),
            specFile: "plan")
        #expect(card.front.printSize == plan.printSize && card.front.sampleSize == plan.sampleSize)
        #expect(card.front.smallSize == plan.smallSize)
    }

    @Test("the executor is chosen in one place: fast only for what it does exactly")
    func executorChoice() throws {
        func isFast(_ plan: CardPlan) -> Bool {
            if case .fast = plan.executor { return true }
            return false
        }
        #expect(isFast(try Self.plan(CardSpec())))
        #expect(
            isFast(try Self.plan(CardSpec(placement: .transform(scale: 1.2, rotation: -90, offsetX: 0, offsetY: 0)))))
        // Any angle: the fast executor turns it (`FastCardRenderer`).
        #expect(isFast(try Self.plan(CardSpec(placement: .transform(scale: 1, rotation: 30, offsetX: 0, offsetY: 0)))))
        #expect(!isFast(try Self.plan(CardSpec(), settings: .init(engine: .general))))
        #expect(
            !isFast(try Self.plan(CardSpec(), settings: .init(printFile: .image(EncodeOptions(format: .tiff))))))
        // Cover: scale max(1748 / 3000, 1240 / 2000) = 0.62, so 1860 x 1240, centred: 56 px
        // cut off left and right; decoded at 1/1 (1/2, 1500 x 1000, would not cover it).
        let cover = try Self.plan(CardSpec())
        #expect(cover.scaledPhoto == Size(width: 1860, height: 1240))
        #expect(cover.dctShrink == 1)
        #expect(
            cover.source
                == .region(
                    box: PixelRect(left: 56, top: 0, right: 1804, bottom: 1240), size: Size(width: 1748, height: 1240),
                    quarters: 0, x: 0, y: 0))
    }

    /// A quarter-turned photo's visible part, turned back into the scaled photo: each of the
    /// four turns, moved partly out of the window, shows the box of the photo that lands
    /// there (worked out by hand for a 30 x 20 photo in a 25 x 16 window).
    @Test("quarter turns map the window's visible part back to the scaled photo")
    func quarterTurnedBoxes() {
        let photo = Size(width: 30, height: 20)
        let window = PixelRect(left: 0, top: 0, right: 25, bottom: 16)
        // Centred at (20, 8): unturned, the 30 x 20 photo spans x 5...35, y -2...18.
        let centre = (x: 20.0, y: 8.0)
        #expect(
            CardPlan.quarterTurned(photo, quarters: 0, centre: centre, window: window)
                == .region(
                    box: PixelRect(left: 0, top: 2, right: 20, bottom: 18), size: Size(width: 20, height: 16),
                    quarters: 0, x: 5, y: 0))
        // A quarter turn clockwise: 20 x 30, spanning x 10...30, y -7...23; the window shows
        // x 10...25 (turned columns 0...15) and y 0...16 (turned rows 7...23). Turned column c
        // is photo row 19 - c, turned row r is photo column r.
        #expect(
            CardPlan.quarterTurned(photo, quarters: 1, centre: centre, window: window)
                == .region(
                    box: PixelRect(left: 7, top: 5, right: 23, bottom: 20), size: Size(width: 16, height: 15),
                    quarters: 1, x: 10, y: 0))
        // A half turn: spans x 5...35, y -2...18 as unturned, the photo upside down.
        #expect(
            CardPlan.quarterTurned(photo, quarters: 2, centre: centre, window: window)
                == .region(
                    box: PixelRect(left: 10, top: 2, right: 30, bottom: 18), size: Size(width: 20, height: 16),
                    quarters: 2, x: 5, y: 0))
        // Three quarters: turned column c is photo row c, turned row r is photo column 29 - r.
        #expect(
            CardPlan.quarterTurned(photo, quarters: 3, centre: centre, window: window)
                == .region(
                    box: PixelRect(left: 7, top: 0, right: 23, bottom: 15), size: Size(width: 16, height: 15),
                    quarters: 3, x: 10, y: 0))
        // Pushed wholly out: the background alone.
        #expect(CardPlan.quarterTurned(photo, quarters: 1, centre: (60, 8), window: window) == .background)
        #expect(CardPlan.rotated(photo, degrees: 45, centre: (-40, -40), window: window) == .background)
    }
}
