import Foundation
import PressKit
import PressPDF
import TestSupport
import Testing

/// `cardrender impose --sort destination --manifest`: the postcards sorted by the destination
/// in their Info, imposed cut-and-stack, the deposit manifest beside the sheets.
struct ImposeSortTests {
    /// A two-page A6 postcard (3 mm bleed) written to `path`, its Info carrying `info` (keys
    /// without their slash) as `render --press` writes them.
    static func writePostcard(_ path: String, info: [(String, String)]) throws {
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
            to: try document.indirect("<< /Title (postcard) /Creator (cardrender)\(entries) >>"))
        try Data(try document.write(version: "1.3")).write(to: URL(fileURLWithPath: path))
    }

    static func addressed(_ country: String, _ postcode: String, _ name: String) -> [(String, String)] {
        [
            ("DestinationCountry", country), ("DestinationPostcode", postcode), ("DestinationName", name),
            ("MailClass", "postcard"),
        ]
    }

    @Test func postcardsLeaveSortedWithTheirManifest() throws {
        let scratch = try Fixtures.scratchDirectory()
        let cards: [(String, [(String, String)])] = [
            ("a", Self.addressed("GB", "SW1A 1AA", "Downing")), ("b", Self.addressed("FR", "13001", "Marc")),
            ("c", Self.addressed("DE", "10115", "Jonas")), ("d", Self.addressed("FR", "75001", "Émile")),
            ("e", Self.addressed("FR", "75001", "Zoé")),
        ]
        for (name, info) in cards { try Self.writePostcard(scratch + "/\(name).pdf", info: info) }
        let files = cards.map { scratch + "/\($0.0).pdf" }
        let sheets = scratch + "/sheets.pdf"
        let run = try Tools.run(
            Tools.cardrender,
            ["impose"] + files + ["--sort", "destination", "--manifest", scratch + "/deposit.csv", "--out", sheets])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("5 postcards on 2 sheets of 450 x 320 mm, 2 x 2 up"), "\(run.stderr)")
        #expect(run.stderr.contains("sorted by destination, cut-and-stack"), "\(run.stderr)")
        // 5 cards, 4 a sheet: 2 sheets; sequence i on sheet i mod 2, position i div 2 (from 0).
        let csv = try String(contentsOfFile: scratch + "/deposit.csv", encoding: .utf8)
        #expect(
            csv == "sequence,card,country,postcode,mail_class,sheet,position\r\n"
                + "1,\(scratch)/c.pdf,DE,10115,postcard,1,1\r\n"
                + "2,\(scratch)/b.pdf,FR,13001,postcard,2,1\r\n"
                + "3,\(scratch)/d.pdf,FR,75001,postcard,1,2\r\n"
                + "4,\(scratch)/e.pdf,FR,75001,postcard,2,2\r\n"
                + "5,\(scratch)/a.pdf,GB,SW1A 1AA,postcard,1,3\r\n")
        let json = try String(contentsOfFile: scratch + "/deposit.json", encoding: .utf8)
        #expect(json.hasPrefix(#"{"countries":{"DE":1,"FR":3,"GB":1},"departements":{"13":1,"75":2},"rows":["#))
        #expect(!csv.contains("Zoé") && !json.contains("Zo"), "no recipient's name in the manifest")

        let document = try QPDFDocument(
            reading: Array(try Data(contentsOf: URL(fileURLWithPath: sheets))), name: sheets)
        #expect(document.pageCount == 4)
        let info = try #require(document.value("/Info", in: document.trailer))
        #expect(document.keys(info).contains("/Title"))
        for key in Imposer.destinationInfoKeys { #expect(document.value(key, in: info) == nil, "\(key)") }
    }

    @Test func aPostcardWithoutADestinationIsRefusedByName() throws {
        let scratch = try Fixtures.scratchDirectory()
        try Self.writePostcard(scratch + "/addressed.pdf", info: Self.addressed("FR", "75001", "Zoé"))
        try Self.writePostcard(scratch + "/plain.pdf", info: [])
        let files = [scratch + "/addressed.pdf", scratch + "/plain.pdf"]
        for extra in [["--sort", "destination"], ["--manifest", scratch + "/deposit"]] {
            let run = try Tools.run(Tools.cardrender, ["impose"] + files + extra + ["--out", scratch + "/s.pdf"])
            #expect(run.status == 1)
            #expect(run.stderr.contains("plain.pdf: carries no destination"), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: scratch + "/s.pdf"))
        }
        // In input order without a manifest, no destination is needed.
        let plain = try Tools.run(Tools.cardrender, ["impose"] + files + ["--out", scratch + "/s.pdf"])
        #expect(plain.status == 0, "\(plain.stderr)")
    }
}
