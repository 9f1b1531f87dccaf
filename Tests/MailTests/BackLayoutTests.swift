import CardKit
import FastPath
import Foundation
import Mail
import PressKit
import TestSupport
import Testing
import VipsKit

/// The back's address block: real French names and 38-character lines fit, the type shrinks
/// then condenses, the sender keeps to the left half; every back passes the postal check.
@Suite(.libvips) struct BackLayoutTests {
    static let format = CardFormat()
    static let zones = PostalZones(width: 148, height: 105)

    static func pixels(_ back: VImage) throws -> MemoryImage {
        MemoryImage(width: back.width, height: back.height, pixels: try back.eightBitPixels())
    }

    /// The inked box of `area` (millimetres) of `back`, in millimetres, or nil when blank.
    static func ink(_ back: VImage, in area: PostalZones.Rect) throws -> PostalZones.Rect? {
        let (left, top) = (format.pixels(area.x), format.pixels(area.y))
        let crop = try back.extractArea(
            left: left, top: top, width: format.pixels(area.maxX) - left, height: format.pixels(area.maxY) - top)
        guard let box = try crop.inkBox(background: [255, 255, 255], threshold: 60) else { return nil }
        let mm = { (pixels: Int) in Double(pixels) / Double(format.dpi) * 25.4 }
        return PostalZones.Rect(
            x: area.x + mm(box.x), y: area.y + mm(box.y), width: mm(box.width), height: mm(box.height))
    }

    @Test func realFrenchNamesAndThirtyEightCharacterLinesFit() throws {
        let recipient = PostalAddress(
            name: "Mme Martine Durand-Lefebvre", addressLines: ["Résidence les Jardins de Saint-Germain"],
            locality: "Saint-Rémy-de-Provence", postcode: "13210", country: "France")
        #expect(recipient.addressLines[0].count == 38)
        let back = try VersoRenderer().render(
            message: nil, recipient: recipient, recipientIndex: 1, format: Self.format, specFile: "a.card.json")
        let check = PostalCheck(width: 148, height: 105, bleed: 0)
        #expect(check.violations(of: try Self.pixels(back), hasAddress: true).isEmpty)
        let box = try #require(try Self.ink(back, in: Self.zones.addressZone))
        #expect(box.maxX <= Self.zones.addressZone.maxX && box.maxY <= Self.zones.addressZone.maxY)
        // Bottom right: the block ends within 3 mm of the zone's bottom.
        #expect(box.maxY > Self.zones.addressZone.maxY - 3)
    }

    @Test func theTypeShrinksThenCondensesAndPastThirtyEightTheErrorSpeaksToAPerson() throws {
        let wide = PostalAddress(
            name: "Mlle Marie-Charlotte Dupont-Lefebvre", organisation: "RESIDENCE DES GRANDS CHENES BATIMENT C",
            addressLines: ["1 rue X"], locality: "Paris", postcode: "75001", country: "FR")
        let back = try VersoRenderer().render(
            message: nil, recipient: wide, recipientIndex: 0, format: Self.format, specFile: "a.card.json")
        #expect(
            PostalCheck(width: 148, height: 105, bleed: 0).violations(of: try Self.pixels(back), hasAddress: true)
                .isEmpty)
        #expect(wide.organisation?.count == 38)
        // 38 of the widest letter cannot fit even condensed: refused, in words.
        var widest = wide
        widest.organisation = String(repeating: "W", count: 38)
        let tooWide = #expect(throws: CardSpecError.self) {
            try VersoRenderer().check(message: nil, recipients: [widest], format: Self.format, specFile: "a.card.json")
        }
        #expect(tooWide?.field == "recipients[0].organisation")
        #expect(tooWide?.problem.hasPrefix("recipient 1, organisation: the line \"WWW") == true)
        var longer = wide
        longer.name = "Jean-Pierre Dupont-Lefèvre de la Tour d'Auvergne"
        let error = #expect(throws: CardSpecError.self) {
            try VersoRenderer().check(
                message: nil, recipients: [wide, longer], format: Self.format, specFile: "a.card.json")
        }
        #expect(error?.field == "recipients[1].name")
        #expect(
            error?.problem
                == "recipient 2, name: \(longer.name.count) characters; an address line holds 38. Shorten it to 38 characters."
        )
    }

    @Test func theSenderIsPrintedSmallOnTheLeftHalfAboveTheStrip() throws {
        let recipient = PostalAddress(
            name: "Sherlock Holmes", addressLines: ["221B Baker Street"], locality: "London", postcode: "NW1 6XE",
            country: "GB")
        let sender = PostalAddress(
            name: "Jean Dupont", addressLines: ["3 rue Lepic"], locality: "Paris", postcode: "75018", country: "FR")
        let message = CardMessage(text: "Bons baisers de Paris !")
        let with = try VersoRenderer().render(
            message: message, sender: sender, recipient: recipient, recipientIndex: 0, format: Self.format,
            specFile: "a.card.json")
        let without = try VersoRenderer().render(
            message: message, recipient: recipient, recipientIndex: 0, format: Self.format, specFile: "a.card.json")
        let lowerLeft = PostalZones.Rect(x: 0, y: 60, width: 70, height: 45)
        let box = try #require(try Self.ink(with, in: lowerLeft))
        #expect(try Self.ink(without, in: lowerLeft) == nil)
        #expect(box.maxY <= 105 - 15 && box.maxX < Self.zones.divider)
        // Four lines (the label, name, street, postcode and city) at 7 pt: under 20 mm tall.
        #expect(box.height < 20)
        // The right half is the same with or without the sender.
        let right = PostalZones.Rect(x: 76, y: 0, width: 72, height: 105)
        #expect(try Self.ink(with, in: right) == Self.ink(without, in: right))
        #expect(
            PostalCheck(width: 148, height: 105, bleed: 0).violations(of: try Self.pixels(with), hasAddress: true)
                .isEmpty)
    }

    @Test(arguments: PaperSize.allCases)
    func everyCardSizeKeepsTheZones(size: PaperSize) throws {
        let format = CardFormat(size: size, dpi: 150, bleed: 3)
        let recipient = PostalAddress(
            name: "John Smith", addressLines: ["1600 Amphitheatre Parkway"], locality: "Mountain View", region: "CA",
            postcode: "94043", country: "US")
        let back = try VersoRenderer().render(
            message: CardMessage(text: String(repeating: "Greetings from the coast. ", count: 8)),
            sender: PostalAddress(
                name: "Ada Lovelace", addressLines: ["12 rue de la Paix"], locality: "Paris", postcode: "75002",
                country: "FR"), recipient: recipient, recipientIndex: 0, format: format, specFile: "a.card.json")
        let millimetres = size.millimetres
        let check = PostalCheck(width: millimetres.long, height: millimetres.short, bleed: 3)
        #expect(check.violations(of: try Self.pixels(back), hasAddress: true).isEmpty, "\(size)")
    }
}
