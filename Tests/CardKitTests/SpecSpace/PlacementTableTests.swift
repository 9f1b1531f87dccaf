import Foundation
import ImageCore
import TestSupport
import Testing
import VipsKit

@testable import CardKit

/// Every kind of placement a customer's fingers make, through both executors: the same
/// picture (within 1.5 of 255 where auto takes the fast executor), and the background where
/// the photo does not reach, at points worked out by hand.
@Suite(.libvips, .enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
struct PlacementTableTests {
    /// A placement, and window points (print pixels of a frameless A6 at 300 dpi, 1748 x
    /// 1240, no bleed) that must show the background (#204080).
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let placement: PhotoPlacement
        let background: [(x: Int, y: Int)]
        var testDescription: String { name }
    }

    // Landscape_1 is 1800 x 1200: cover scales it by 1240 / 1200 to 1860 x 1240.
    static let cases: [Case] = [
        Case(name: "cover", placement: .cover, background: []),
        Case(name: "reduced crop", placement: .crop(x: 100, y: 80, width: 1410, height: 1000), background: []),
        Case(name: "enlarged crop", placement: .crop(x: 700, y: 500, width: 282, height: 200), background: []),
        // Moved down three quarters of the window: rows 0-929 are background.
        Case(
            name: "dragged partly out", placement: .transform(scale: 1, rotation: 0, offsetX: 0, offsetY: 0.75),
            background: [(874, 400), (20, 900)]),
        Case(
            name: "dragged wholly out", placement: .transform(scale: 1, rotation: 0, offsetX: -1.6, offsetY: 0),
            background: [(874, 620), (1740, 10)]),
        // Turned to 1240 x 1860 and moved 699 px right: columns 0-952 are background.
        Case(
            name: "quarter turn, moved", placement: .transform(scale: 1, rotation: 90, offsetX: 0.4, offsetY: 0),
            background: [(400, 620), (940, 5)]),
        Case(
            name: "three quarters, partly out",
            placement: .transform(scale: 2, rotation: -90, offsetX: -1.2, offsetY: 0.3), background: [(1700, 40)]),
        // 33 degrees: the window's corners fall outside the turned photo.
        Case(
            name: "any angle", placement: .transform(scale: 1, rotation: 33, offsetX: 0, offsetY: 0),
            background: [(3, 3), (1744, 1236)]),
        Case(
            name: "zoomed in twentyfold", placement: .transform(scale: 20, rotation: 0, offsetX: 0.3, offsetY: -0.2),
            background: []),
        Case(
            name: "zoomed twentyfold and turned",
            placement: .transform(scale: 20, rotation: 45, offsetX: -0.4, offsetY: 0.4), background: []),
        // 93 x 62 in the middle of the window.
        Case(
            name: "zoomed out to a stamp", placement: .transform(scale: 0.05, rotation: 0, offsetX: 0, offsetY: 0),
            background: [(100, 100), (874, 520)]),
        Case(
            name: "stamp pushed ten windows away",
            placement: .transform(scale: 0.05, rotation: 270, offsetX: 10, offsetY: -10), background: [(874, 620)]),
    ]

    @Test("each kind of placement renders alike in both executors", arguments: cases)
    func placement(_ kind: Case) throws {
        let photo = try ImageData(
            contentsOfFile: Fixtures.photo("orientation/Landscape_1.jpg"), maxBytes: 64 << 20)
        let spec = CardSpec(
            placement: kind.placement, format: CardFormat(size: .a6, dpi: 300, bleed: 0),
            background: [0x20, 0x40, 0x80])
        var prints: [RenderEngine: (VImage, RenderPath)] = [:]
        for engine in [RenderEngine.auto, .general] {
            let card = try CardRenderer(catalogue: nil, settings: .init(engine: engine))
                .render(photo: photo, spec: spec, specFile: kind.name)
            let image = try Fixtures.load(card.front.print, name: "\(kind.name) \(engine)")
            #expect(image.width == 1748 && image.height == 1240)
            for point in kind.background {
                let pixel = try image.pixel(x: point.x, y: point.y)
                let off = zip(pixel, [0x20, 0x40, 0x80]).map { abs($0 - Double($1)) }.max()!
                #expect(off <= 4, "\(engine) at \(point): \(pixel), expected the background")
            }
            prints[engine] = (image, card.path)
        }
        let (auto, general) = (prints[.auto]!, prints[.general]!)
        if auto.1 == .fast {
            let difference = try auto.0.meanAbsoluteDifference(to: general.0)
            #expect(difference <= 1.5, "fast and general differ by \(difference)")
        }
    }
}
