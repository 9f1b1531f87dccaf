import CardKit
import Foundation
import Mail
import TestSupport
import Testing
import VipsKit

/// The message side: alignment, colour, limits, fonts, literal text, recipients.
@Suite(.libvips) struct VersoTests {
    static let fontsInstalled = CardMessage.Font.allCases.allSatisfy { FileManager.default.fileExists(atPath: $0.file) }
    static let noFonts: Comment = "message fonts not installed (scripts/setup.sh installs them)"
    let format = CardFormat()

    func back(_ message: CardMessage?, recipient: Recipient? = nil) throws -> VImage {
        try VersoRenderer().render(
            message: message, recipient: recipient, recipientIndex: 0, format: format, specFile: "v.card.json")
    }

    /// The message area: the left half, left of the dividing rule, inside the margins and
    /// above the coding strip (`PostalZones.messageArea`).
    func messageArea(_ image: VImage) throws -> VImage {
        let area = PostalZones(width: 148, height: 105).messageArea
        let (left, top) = (format.pixels(area.x), format.pixels(area.y))
        return try image.extractArea(
            left: left, top: top, width: format.pixels(area.maxX) - left, height: format.pixels(area.maxY) - top)
    }

    @Test(.enabled(if: fontsInstalled, noFonts))
    func alignmentMovesTheInkedBox() throws {
        var boxes: [CardMessage.Alignment: (x: Int, y: Int, width: Int, height: Int)] = [:]
        for align in CardMessage.Alignment.allCases {
            let area = try messageArea(back(CardMessage(text: "Bonjour", size: 20, align: align)))
            let box = try #require(try area.inkBox(background: [255, 255, 255], threshold: 40))
            boxes[align] = box
        }
        let areaWidth = try messageArea(back(nil)).width
        let left = try #require(boxes[.left]), centre = try #require(boxes[.centre]),
            right = try #require(boxes[.right])
        #expect(left.x < 10)
        #expect(abs(right.x + right.width - areaWidth) < 10)
        #expect(abs((centre.x + centre.width / 2) - areaWidth / 2) < 10)
        #expect(abs(left.width - right.width) <= 3)
    }

    @Test(.enabled(if: fontsInstalled, noFonts), arguments: CardMessage.Colour.allCases)
    func inkIsTheChosenColour(colour: CardMessage.Colour) throws {
        let area = try messageArea(back(CardMessage(text: "HHHH MMMM", size: 30, colour: colour)))
        let box = try #require(try area.inkBox(background: [255, 255, 255], threshold: 40))
        // The darkest pixel of the text is fully inked: it is the colour itself.
        var darkest: [Double] = [255, 255, 255]
        for y in stride(from: box.y, to: box.y + box.height, by: 2) {
            for x in stride(from: box.x, to: box.x + box.width, by: 2) {
                let pixel = try area.pixel(x: x, y: y)
                if pixel.reduce(0, +) < darkest.reduce(0, +) { darkest = pixel }
            }
        }
        #expect(zip(darkest, colour.rgb).allSatisfy { abs($0 - $1) < 12 }, "\(colour): \(darkest)")
    }

    @Test(.enabled(if: fontsInstalled, noFonts))
    func twelveLinesFitAndThirteenDoNot() throws {
        let twelve = (1...12).map { "ligne \($0)" }.joined(separator: "\n")
        _ = try back(CardMessage(text: twelve, size: 10))
        let thirteen = twelve + "\nligne 13"
        let parsed = #expect(throws: CardSpecError.self) {
            try CardSpec.parse(
                Data(
                    #"{"version": 1, "message": {"text": "\#(thirteen.replacingOccurrences(of: "\n", with: "\\n"))"}}"#
                        .utf8), file: "v.card.json")
        }
        #expect(parsed?.description == "v.card.json: message.text: has 13 lines; a message may have 12 at most.")
        // Wrapping counts too: a long paragraph at size 30 makes more than 12 lines.
        let long = String(repeating: "Une très longue phrase qui ne finit pas. ", count: 12)
        let wrapped = #expect(throws: CardSpecError.self) { try back(CardMessage(text: long, size: 30)) }
        #expect(wrapped?.field == "message.text")
        #expect(wrapped?.description.contains("lines in the message area at size 30; at most 12 lines fit") == true)
    }

    @Test(arguments: [(10, true), (30, true), (9, false), (31, false)])
    func sizeLimits(size: Int, accepted: Bool) throws {
        let json = #"{"version": 1, "message": {"text": "Coucou", "size": \#(size)}}"#
        if accepted {
            #expect(try CardSpec.parse(Data(json.utf8), file: "v").message?.size == size)
        } else {
            let error = #expect(throws: CardSpecError.self) { try CardSpec.parse(Data(json.utf8), file: "v") }
            #expect(error?.description == "v: message.size: expected a whole number from 10 to 30, received \(size).")
        }
    }

    @Test func unknownFontColourAndEmptyNameAreNamed() throws {
        let cases = [
            (
                #"{"version": 1, "message": {"text": "a", "font": "comic"}}"#,
                "message.font: expected one of sans, script, typewriter, serif"
            ),
            (
                #"{"version": 1, "message": {"text": "a", "colour": "purple"}}"#,
                "message.colour: expected one of black, orange, blue, green, red"
            ),
            (
                #"{"version": 1, "message": {"text": "a", "align": "center"}}"#,
                "message.align: expected one of left, centre, right"
            ),
            (
                #"{"version": 1, "recipients": [{"name": "", "address1": "x", "postcode": "1", "city": "c", "country": "F"}]}"#,
                "recipients[0].name: expected a non-empty string"
            ),
        ]
        for (json, message) in cases {
            let error = #expect(throws: CardSpecError.self) { try CardSpec.parse(Data(json.utf8), file: "v") }
            #expect(error?.description.contains(message) == true, "\(error?.description ?? "")")
        }
    }

    @Test(.enabled(if: fontsInstalled, noFonts))
    func theFourFontsLookDifferent() throws {
        let renders = try CardMessage.Font.allCases.map { font in
            try messageArea(back(CardMessage(text: "Bises de Paris !", font: font, size: 20)))
        }
        for first in 0..<renders.count {
            for second in (first + 1)..<renders.count {
                #expect(try renders[first].meanAbsoluteDifference(to: renders[second]) > 0.5)
            }
        }
    }

    /// `text` with `&`, `<` and `>` escaped, as the `vips text` CLI (Pango markup) needs.
    static func escapingMarkup(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    /// Markup characters are printed as typed, and accented text matches the same text
    /// rendered with the font directly by the `vips` CLI (escaped, as Pango needs): the same
    /// ink box within 2 pixels.
    @Test(.enabled(if: fontsInstalled, noFonts))
    func textIsPrintedLiterallyWithItsAccents() throws {
        let text = "À bientôt, l'été <b>&</b> Noël"
        let block = try VersoRenderer().layOut(
            CardMessage(text: text, font: .serif, size: 14), areaWidth: 2000, dpi: 300, specFile: "v")
        let mask = try #require(block.ink).alpha
        let directory = try Fixtures.scratchDirectory()
        try Tools.vips(
            "text", directory + "/reference.png", Self.escapingMarkup(text), "--font", "EB Garamond 12 14",
            "--fontfile",
            CardMessage.Font.serif.file, "--dpi", "300")
        let referenceImage = try Fixtures.load(directory + "/reference.png")
        let ours = try #require(try mask.inkBox(background: [0], threshold: 60))
        let reference = try #require(try referenceImage.inkBox(background: [0], threshold: 60))
        #expect(
            abs(ours.width - reference.width) <= 2 && abs(ours.height - reference.height) <= 2, "\(ours) \(reference)")
        // With the tags printed the line is much wider than the same words without them.
        let plain = try VersoRenderer().layOut(
            CardMessage(text: "À bientôt, l'été & Noël", font: .serif, size: 14), areaWidth: 2000, dpi: 300,
            specFile: "v")
        let plainInk = try #require(plain.ink)
        let plainBox = try #require(try plainInk.alpha.inkBox(background: [0], threshold: 60))
        #expect(ours.width > plainBox.width + 50)
    }

    @Test(.enabled(if: fontsInstalled, noFonts))
    func addressIsPrintedAndTooLongLinesAreRefused() throws {
        let recipient = Recipient(
            name: "Mme Martine Durand", address1: "12 rue des Lilas", address2: "Bât. B", postcode: "75011",
            city: "Paris", country: "France")
        let image = try back(nil, recipient: recipient)
        let divider = image.width / 2
        let address = try image.extractArea(
            left: divider + 20, top: image.height / 2, width: image.width - divider - 100, height: image.height / 2 - 80
        )
        #expect(try address.inkBox(background: [255, 255, 255], threshold: 120) != nil)
        let empty = try back(nil, recipient: nil)
        #expect(try empty.meanAbsoluteDifference(to: image) > 0.3)
        var long = recipient
        long.addressLines[0] = String(repeating: "Résidence des Grands Chênes ", count: 3)
        let error = #expect(throws: CardSpecError.self) { try back(nil, recipient: long) }
        #expect(error?.field == "recipients[0].address1")
    }
}
