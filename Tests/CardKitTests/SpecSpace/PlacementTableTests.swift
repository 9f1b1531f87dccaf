import Foundation
import ImageCore
import PhotoSources
import PressKit
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

    /// Any angle lands where libvips's own `rotate` of the whole scaled photo puts it, turned
    /// the right way: the window (placed by the plan's boxes alone) against the whole photo
    /// scaled, turned and embedded at its centre, and against the opposite turn.
    @Test("any angle is turned clockwise about the window centre, as the whole photo turned", arguments: [33.0, -71.5])
    func anyAngleMatchesTheWholePhotoTurned(_ degrees: Double) throws {
        let photo = try ImageData(
            contentsOfFile: Fixtures.photo("orientation/Landscape_1.jpg"), maxBytes: 64 << 20)
        let (offsetX, offsetY) = (0.12, -0.08)
        func window(_ turn: Double) throws -> VImage {
            let spec = CardSpec(
                placement: .transform(scale: 1.3, rotation: turn, offsetX: offsetX, offsetY: offsetY),
                format: CardFormat(size: .a6, dpi: 150, bleed: 0), background: [0x20, 0x40, 0x80])
            let card = try CardRenderer(catalogue: nil, settings: .init(engine: .general))
                .render(photo: photo, spec: spec, specFile: "angle")
            return try Fixtures.load(card.front.print, name: "angle \(turn)")
        }
        let ours = try window(degrees)
        // The reference: the whole photo scaled to the cover x 1.3, turned by libvips's rotate
        // (its bounding box centred on the photo's centre), centred at the window's centre
        // plus the offsets.
        let (width, height) = (ours.width, ours.height)
        let cover = max(Double(width) / 1800, Double(height) / 1200) * 1.3
        let scaled = try photo.decode(policy: .default, strict: true).opaqueSRGB().resized(scale: cover)
        let turned = try scaled.rotated(degrees: degrees, background: [0x20, 0x40, 0x80])
        let x = Int((Double(width) * (0.5 + offsetX) - Double(turned.width) / 2).rounded())
        let y = Int((Double(height) * (0.5 + offsetY) - Double(turned.height) / 2).rounded())
        let reference = try turned.embedded(x: x, y: y, width: width, height: height, background: [0x20, 0x40, 0x80])
        let difference = try ours.meanAbsoluteDifference(to: reference.inMemory())
        // Within 6 of 255: the reference is another pipeline (the whole photo reduced, rotate's
        // bounding box placed to the nearest pixel: up to half a pixel apart). The opposite turn
        // must be far further away, or the test would not see a wrong direction.
        #expect(difference <= 6, "\(degrees) degrees: \(difference) of 255 from the whole photo turned")
        let opposite = try window(-degrees).meanAbsoluteDifference(to: reference.inMemory())
        #expect(opposite > 4 * max(difference, 1), "the opposite turn is as close (\(opposite)): no direction")
    }
}
