import Mail
import PressKit
import PressPDF
import Testing

/// The destination a postcard's Info carries, read back; sheets imposed cut-and-stack, with
/// short sheets and no recipient in their Info.
struct ImposerDestinationTests {
    /// A two-page A6 postcard (3 mm bleed) whose Info has `info` (keys without their slash),
    /// as `render --press` writes them, and a title.
    static func postcard(_ name: String, info: [(String, String)]) throws -> Imposer.Postcard {
        let points = { (millimetres: Double) in PDFSyntax.number(millimetres / 25.4 * 72) }
        let document = try QPDFDocument()
        let boxes =
            "/MediaBox [0 0 \(points(154)) \(points(111))] /BleedBox [0 0 \(points(154)) \(points(111))] "
            + "/TrimBox [\(points(3)) \(points(3)) \(points(151)) \(points(108))]"
        try document.addPage(boxes, xObjects: [], content: "0 0 0 1 k 0 0 10 10 re f\n")
        try document.addPage(boxes, xObjects: [], content: "0 0 0 1 k 10 10 10 10 re f\n")
        let entries = info.map { " /\($0.0) \(PDFSyntax.text($0.1))" }.joined()
        try document.set(
            "/Info", of: document.trailer,
            to: try document.indirect("<< /Title (\(name)) /Creator (cardrender)\(entries) >>"))
        return Imposer.Postcard(name: name, bytes: try document.write(version: "1.3"))
    }

    static func addressed(_ name: String, _ country: String, _ postcode: String, _ recipient: String) throws
        -> Imposer.Postcard
    {
        try postcard(
            name,
            info: [
                ("DestinationCountry", country), ("DestinationPostcode", postcode), ("DestinationName", recipient),
                ("MailClass", "postcard"),
            ])
    }

    @Test func theDestinationIsReadFromLiteralAndUTF16Strings() throws {
        let card = try Self.addressed("zoe.pdf", "FR", "75001", "Zoë Ångström 東京")
        #expect(
            try Imposer.destination(of: card)
                == Destination(country: "FR", postcode: "75001", name: "Zoë Ångström 東京", mailClass: .postcard))
        let letter = try Self.postcard(
            "letter.pdf",
            info: [("DestinationCountry", "gb"), ("DestinationName", "A (B) \\ C"), ("MailClass", "letter")])
        #expect(
            try Imposer.destination(of: letter)
                == Destination(country: "GB", postcode: "", name: "A (B) \\ C", mailClass: .letter))
        #expect(try Imposer.destination(of: try Self.postcard("plain.pdf", info: [])) == nil)
    }

    @Test func anIncompleteDestinationIsRefusedNamingTheFile() throws {
        let noClass = try Self.postcard("noclass.pdf", info: [("DestinationCountry", "FR")])
        let refusal1 = #expect(throws: ImpositionError.self) { try Imposer.destination(of: noClass) }?.message ?? ""
        #expect(refusal1.contains("noclass.pdf") && refusal1.contains("/MailClass"), "\(refusal1)")
        let noCountry = try Self.postcard("nocountry.pdf", info: [("DestinationName", "X"), ("MailClass", "postcard")])
        let refusal2 = #expect(throws: ImpositionError.self) { try Imposer.destination(of: noCountry) }?.message ?? ""
        #expect(refusal2.contains("nocountry.pdf") && refusal2.contains("/DestinationCountry"), "\(refusal2)")
        let badClass = try Self.postcard("bad.pdf", info: [("DestinationCountry", "FR"), ("MailClass", "parcel")])
        let refusal3 = #expect(throws: ImpositionError.self) { try Imposer.destination(of: badClass) }?.message ?? ""
        #expect(refusal3.contains("bad.pdf") && refusal3.contains("\"parcel\""), "\(refusal3)")
    }

    @Test func sheetsImposedCutAndStackLeaveNoRecipientInTheirInfo() throws {
        let cards = try (0..<10).map { try Self.addressed("card\($0).pdf", "FR", "7500\($0)", "Secret Name \($0)") }
        let imposer = Imposer(sheet: .sra3)
        let layout = try imposer.layout(for: cards[0])
        #expect(layout.perSheet == 4)
        let plan = CutAndStack(cards: cards.count, perSheet: layout.perSheet)
        let (pdf, used) = try imposer.impose(sheets: plan.grouped(cards))
        #expect(used == layout)
        let sheets = try QPDFDocument(reading: pdf, name: "sheets.pdf")
        #expect(sheets.pageCount == 6, "a sheet of fronts and one of backs for each of 3 sheets")
        for (page, expected) in [(0, 4), (1, 4), (2, 3), (3, 3), (4, 3), (5, 3)] {
            let forms = sheets.value("/XObject", in: sheets.value("/Resources", in: sheets.page(page))!)!
            #expect(sheets.keys(forms).count == expected, "page \(page + 1)")
        }
        let info = try #require(sheets.value("/Info", in: sheets.trailer))
        #expect(sheets.keys(info).contains("/Title") && sheets.keys(info).contains("/Creator"))
        for key in Imposer.destinationInfoKeys { #expect(sheets.value(key, in: info) == nil, "\(key)") }
        #expect(!String(decoding: pdf, as: UTF8.self).contains("Secret Name"))
    }

    @Test func fillingInOrderIsImposingGroupsOfAFullSheet() throws {
        let cards = try (0..<6).map { try Self.postcard("card\($0).pdf", info: []) }
        let imposer = Imposer(sheet: .sra3)
        let filled = try imposer.impose(cards)
        let grouped = try imposer.impose(sheets: [Array(cards[0..<4]), Array(cards[4...])])
        #expect(filled.pdf == grouped.pdf)
        let refusal4 = #expect(throws: ImpositionError.self) { try imposer.impose(sheets: [cards]) }?.message ?? ""
        #expect(refusal4.contains("sheet 1 has 6 postcards, but a sheet holds 4"), "\(refusal4)")
        let refusal5 =
            #expect(throws: ImpositionError.self) { try imposer.impose(sheets: [[cards[0]], []]) }?.message ?? ""
        #expect(refusal5.contains("sheet 2 of 2 has no postcards"), "\(refusal5)")
    }
}
