import CardKit
import Foundation
import ImageCore
import TestSupport
import Testing
import VipsKit

/// The photo side: geometry, print sizes, effects, frames, quality.
@Suite(.libvips) struct CardRendererTests {
    static let catalogue = try! FrameCatalogue(directory: Fixtures.root.appendingPathComponent("frames").path)
    let renderer = CardRenderer(catalogue: CardRendererTests.catalogue)

    /// A 1400x1000 photo: red, green / blue, yellow quadrants and a magenta centre square
    /// (x 560-840, y 360-640).
    static func testPhoto() throws -> ImageData {
        let path = try Fixtures.scratchDirectory() + "/photo.png"
        try Synthetic.image(path, width: 1400, height: 1000, bands: 3) { x, y in
            if (560..<840).contains(x) && (360..<640).contains(y) { return [220, 0, 220] }
            switch (x < 700, y < 500) {
            case (true, true): return [220, 30, 30]
            case (false, true): return [30, 200, 30]
            case (true, false): return [30, 30, 220]
            case (false, false): return [230, 220, 30]
            }
        }
        return try ImageData(contentsOfFile: path, maxBytes: 1 << 24)
    }

    static func colour(_ pixel: [Double]) -> String {
        let named: [(String, [Double])] = [
            ("red", [220, 30, 30]), ("green", [30, 200, 30]), ("blue", [30, 30, 220]), ("yellow", [230, 220, 30]),
            ("magenta", [220, 0, 220]), ("white", [255, 255, 255]),
        ]
        return named.min { a, b in
            zip(a.1, pixel).map { abs($0 - $1) }.reduce(0, +) < zip(b.1, pixel).map { abs($0 - $1) }.reduce(0, +)
        }!.0
    }

    func render(_ spec: CardSpec, photo: ImageData? = nil) throws -> (RenderedCard, VImage) {
        let card = try renderer.render(photo: photo ?? Self.testPhoto(), spec: spec, specFile: "test.card.json")
        return (card, try Fixtures.load(card.front.print))
    }

    @Test func printSizeAndDPIForBothOrientationsAndBleed() throws {
        let (landscape, image) = try render(CardSpec())
        #expect(landscape.front.printSize == Size(width: 1748, height: 1240))
        #expect(image.width == 1748 && image.height == 1240)
        #expect(abs(image.xResolution * 25.4 - 300) < 0.5)
        #expect(landscape.orientation == .landscape)

        let (portrait, _) = try render(CardSpec(placement: .crop(x: 0, y: 0, width: 500, height: 705)))
        #expect(portrait.front.printSize == Size(width: 1240, height: 1748))

        let (bled, bledImage) = try render(CardSpec(format: CardFormat(bleed: 3)))
        #expect(bled.front.printSize == Size(width: 1748 + 70, height: 1240 + 70))
        #expect(bledImage.width == 1818)

        let (framedPortrait, _) = try render(CardSpec(frame: "classic/passe-partout"))
        #expect(framedPortrait.front.printSize == Size(width: 1240, height: 1748))
        #expect(landscape.front.sampleSize.width == 800)
        #expect(landscape.front.smallSize == Size(width: 200, height: 142))
        #expect(try ImageData(copying: landscape.front.small, name: "small").header().format == .png)
    }

    @Test func cropShowsExactlyThatRectangle() throws {
        // The centre 700x497 of the photo: the four quadrants meet in the middle of the card.
        let (_, image) = try render(CardSpec(placement: .crop(x: 350, y: 252, width: 700, height: 497)))
        #expect(Self.colour(try image.pixel(x: 100, y: 100)) == "red")
        #expect(Self.colour(try image.pixel(x: 1648, y: 100)) == "green")
        #expect(Self.colour(try image.pixel(x: 100, y: 1140)) == "blue")
        #expect(Self.colour(try image.pixel(x: 1648, y: 1140)) == "yellow")
        #expect(Self.colour(try image.pixel(x: 874, y: 620)) == "magenta")
        // The magenta square's left edge (photo x 560) lands at (560 - 350) x 1748/700 = 524.
        #expect(Self.colour(try image.pixel(x: 514, y: 620)) != "magenta")
        #expect(Self.colour(try image.pixel(x: 534, y: 620)) == "magenta")
    }

    @Test func scaleTwoShowsTheCentre() throws {
        let (_, cover) = try render(CardSpec())
        let (_, zoomed) = try render(CardSpec(placement: .transform(scale: 2, rotation: 0, offsetX: 0, offsetY: 0)))
        #expect(Self.colour(try cover.pixel(x: 600, y: 620)) != "magenta")
        #expect(Self.colour(try zoomed.pixel(x: 600, y: 620)) == "magenta")
        #expect(Self.colour(try cover.pixel(x: 50, y: 50)) == "red")
    }

    @Test func rotationIsClockwiseAboutTheWindowCentre() throws {
        let (_, image) = try render(CardSpec(placement: .transform(scale: 1, rotation: 90, offsetX: 0, offsetY: 0)))
        // Turned a quarter clockwise, the bottom-left (blue) quadrant comes to the top left;
        // the turned photo is narrower than the card, so the sides show the background.
        #expect(Self.colour(try image.pixel(x: 600, y: 200)) == "blue")
        #expect(Self.colour(try image.pixel(x: 1150, y: 200)) == "red")
        #expect(Self.colour(try image.pixel(x: 600, y: 1040)) == "yellow")
        #expect(Self.colour(try image.pixel(x: 60, y: 620)) == "white")
        #expect(Self.colour(try image.pixel(x: 874, y: 620)) == "magenta")
    }

    @Test func offsetMovesByFractionsOfTheWindow() throws {
        let spec = CardSpec(
            placement: .transform(scale: 1, rotation: 0, offsetX: 0.5, offsetY: 0), background: [255, 255, 255])
        let (_, image) = try render(spec)
        #expect(Self.colour(try image.pixel(x: 400, y: 620)) == "white")
        #expect(Self.colour(try image.pixel(x: 900, y: 100)) == "red")
    }

    @Test func effectsHaveTheirProperties() throws {
        let grey = try Fixtures.scratchDirectory() + "/grey.png"
        try Synthetic.image(grey, width: 700, height: 500, bands: 3) { _, _ in [128, 128, 128] }
        let greyPhoto = try ImageData(contentsOfFile: grey, maxBytes: 1 << 24)

        let (_, bw) = try render(CardSpec(effect: ColourEffect(.bw)))
        for (x, y) in [(100, 100), (1648, 100), (874, 620), (100, 1140)] {
            let pixel = try bw.pixel(x: x, y: y)
            #expect(abs(pixel[0] - pixel[1]) <= 2 && abs(pixel[1] - pixel[2]) <= 2, "bw at \(x),\(y): \(pixel)")
        }
        let (_, sepia) = try render(CardSpec(effect: ColourEffect(.sepia)), photo: greyPhoto)
        let tone = try sepia.pixel(x: 874, y: 620)
        #expect(tone[0] >= tone[1] && tone[1] >= tone[2] && tone[0] - tone[2] > 30, "sepia \(tone)")

        let (_, vintage) = try render(CardSpec(effect: ColourEffect(.vintage)), photo: greyPhoto)
        let centre = try vintage.pixel(x: 874, y: 620)
        let corner = try vintage.pixel(x: 5, y: 5)
        #expect(corner.reduce(0, +) < centre.reduce(0, +) - 60, "vintage corner \(corner) centre \(centre)")

        let (_, normal) = try render(CardSpec())
        for name in [ColourEffect.Name.bw, .sepia, .vintage] {
            let (_, none) = try render(CardSpec(effect: ColourEffect(name, strength: 0)))
            #expect(try none.meanAbsoluteDifference(to: normal) == 0, "\(name) at strength 0")
        }
        let (_, half) = try render(CardSpec(effect: ColourEffect(.sepia, strength: 0.5)), photo: greyPhoto)
        let halfTone = try half.pixel(x: 874, y: 620)
        #expect(halfTone[0] > 128 && halfTone[0] < tone[0])
    }

    @Test func frameBorderIsTheArtAndTheWindowIsThePhoto() throws {
        let green = try Fixtures.scratchDirectory() + "/green.png"
        try Synthetic.image(green, width: 1400, height: 1000, bands: 3) { _, _ in [40, 160, 60] }
        let photo = try ImageData(contentsOfFile: green, maxBytes: 1 << 24)
        let frame = try #require(Self.catalogue.frame("travel/airmail"))
        let (card, image) = try render(CardSpec(frame: frame.id), photo: photo)
        #expect(card.frame == "travel/airmail")
        let window = frame.window
        let inside = try image.pixel(x: window.x + window.width / 2, y: window.y + window.height / 2)
        #expect(abs(inside[0] - 40) < 6 && abs(inside[1] - 160) < 6)
        let art = try Self.catalogue.art(frame, width: 1748, height: 1240)
        for (x, y) in [(20, 20), (60, 600), (1700, 1200)] {
            let artPixel = try art.pixel(x: x, y: y)
            let printed = try image.pixel(x: x, y: y)
            #expect(artPixel[3] == 255)
            #expect(zip(artPixel.prefix(3), printed).allSatisfy { abs($0 - $1) < 12 }, "border at \(x),\(y)")
        }
    }

    @Test func frameEffectAppliesUnlessTheSpecNamesOne() throws {
        let (filmCard, film) = try render(CardSpec(frame: "vintage/film"))
        #expect(filmCard.effect == ColourEffect(.bw))
        let pixel = try film.pixel(x: 874, y: 620)
        #expect(abs(pixel[0] - pixel[2]) <= 2)
        let (normalCard, _) = try render(CardSpec(frame: "vintage/film", effect: .normal))
        #expect(normalCard.effect == .normal)
    }

    @Test func qualityVerdictFromEffectiveResolution() throws {
        let small = try Fixtures.scratchDirectory() + "/small.png"
        try Synthetic.image(small, width: 600, height: 420, bands: 3) { _, _ in [90, 90, 90] }
        let (poor, _) = try render(CardSpec(), photo: try ImageData(contentsOfFile: small, maxBytes: 1 << 24))
        #expect(poor.quality == .bad)
        #expect(abs(poor.effectiveDPI - 300 * 600 / 1748) < 2)
        let (fine, _) = try render(CardSpec())
        #expect(fine.quality == .good)
        #expect(fine.effectiveDPI > 150 && fine.effectiveDPI < 300)
    }

    @Test func sameInputsGiveTheSameBytes() throws {
        let spec = CardSpec(
            placement: .transform(scale: 1.3, rotation: 17, offsetX: 0.1, offsetY: -0.05), frame: "love/hearts",
            effect: ColourEffect(.vintage, strength: 0.7))
        let photo = try Self.testPhoto()
        let first = try renderer.render(photo: photo, spec: spec, specFile: "s")
        let second = try renderer.render(photo: photo, spec: spec, specFile: "s")
        #expect(first.front.print == second.front.print && first.front.sample == second.front.sample)
        #expect(first.front.small == second.front.small)
    }

    @Test func unknownFrameAndBadCropAreSpecErrors() throws {
        let unknown = #expect(throws: CardSpecError.self) { try render(CardSpec(frame: "nope/none")) }
        #expect(unknown?.field == "frame")
        let outside = #expect(throws: CardSpecError.self) {
            try render(CardSpec(placement: .crop(x: 1000, y: 0, width: 700, height: 497)))
        }
        #expect(outside?.description.contains("inside the 1400x1000 upright photo") == true)
        let shape = #expect(throws: CardSpecError.self) {
            try render(CardSpec(placement: .crop(x: 0, y: 0, width: 700, height: 700)))
        }
        #expect(shape?.description.contains("2 %") == true)
    }
}
