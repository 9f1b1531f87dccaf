import FastPath
import Foundation
import PressKit
import PressPDF
import TestSupport
import Testing
import VipsKit

/// The post's rules through the command line: the report's mail class and postal warnings,
/// an address the destination refuses, `preflight --postal` on our PDFs and on a broken one.
struct PostalCommandTests {
    static func report(_ output: String) throws -> [[String: Any]] {
        let report =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output + "/report.json")))
            as? [String: Any]
        return try #require(report?["cards"] as? [[String: Any]])
    }

    static let london =
        #"{"name": "Sherlock Holmes", "address1": "221B Baker Street", "city": "London", "postcode": "NW1 6XE", "country": "UK"}"#

    @Test func theReportSaysTheMailClassAndWarnsOfWhatThePostMayDo() throws {
        let input = try Fixtures.scratchDirectory()
        try Synthetic.quadrants(input + "/abroad.png", width: 700, height: 500)
        try Synthetic.quadrants(input + "/sent.png", width: 700, height: 500)
        for size in ["a6", "a5"] {
            let output = try Fixtures.scratchDirectory("report-\(size)")
            let card = #""card": {"size": "\#(size)", "dpi": 100}"#
            try Data(#"{"version": 1, \#(card), "recipients": [\#(Self.london)]}"#.utf8)
                .write(to: URL(fileURLWithPath: input + "/abroad.card.json"))
            try Data(
                #"{"version": 1, \#(card), "recipients": [\#(Self.london)], "sender": {"name": "Jean Dupont", "address1": "3 rue Lepic", "postcode": "75018", "city": "Paris", "country": "FR"}}"#
                    .utf8
            ).write(to: URL(fileURLWithPath: input + "/sent.card.json"))
            let run = try Tools.run(Tools.cardrender, ["render", input, "--out", output, "--no-cache"])
            #expect(run.status == 0, "\(run.stderr)")
            let cards = try Self.report(output)
            let byName = Dictionary(uniqueKeysWithValues: cards.map { (($0["input"] as? String) ?? "", $0) })
            let abroad = try #require(byName.first { $0.key.hasSuffix("abroad.png") }?.value)
            let sent = try #require(byName.first { $0.key.hasSuffix("sent.png") }?.value)
            #expect(abroad["mailClass"] as? String == (size == "a6" ? "postcard" : "letter"))
            let warnings = abroad["postalWarnings"] as? [String] ?? []
            #expect(warnings.first?.contains("no sender") == true, "\(warnings)")
            #expect(warnings.count == (size == "a6" ? 1 : 2), "\(warnings)")
            if size == "a5" { #expect(warnings.last?.contains("as a letter") == true) }
            #expect((sent["postalWarnings"] as? [String] ?? []).count == (size == "a6" ? 0 : 1))
        }
    }

    @Test func anAddressTheDestinationRefusesFailsTheCardNamingTheField() throws {
        let input = try Fixtures.scratchDirectory()
        let output = try Fixtures.scratchDirectory()
        try Synthetic.quadrants(input + "/a.png", width: 700, height: 500)
        try Data(
            #"{"version": 1, "recipients": [{"name": "A B", "address1": "1 High Street", "city": "London", "postcode": "NW1 6XEE", "country": "Royaume-Uni"}]}"#
                .utf8
        ).write(to: URL(fileURLWithPath: input + "/a.card.json"))
        let run = try Tools.run(Tools.cardrender, ["render", input, "--out", output, "--no-cache"])
        #expect(run.status == 1)
        let error = try #require(Self.report(output).first?["error"] as? String)
        #expect(error.contains("recipients[0].postcode"), "\(error)")
        #expect(error.contains("recipient 1, postcode: \"NW1 6XEE\" is not a postcode of United Kingdom"), "\(error)")
        #expect(error.contains("EC1Y 8SY"), "\(error)")
        #expect(!Fixtures.files(under: output).contains("a.print.jpg"))
    }

    @Test func preflightPostalPassesOurPDFsAndNamesTheZoneABrokenOneInks() throws {
        let input = try Fixtures.scratchDirectory()
        let output = try Fixtures.scratchDirectory()
        try Synthetic.quadrants(input + "/card.png", width: 1800, height: 1300)
        try Data(
            #"{"version": 1, "message": {"text": "Bonjour !"}, "recipients": [\#(Self.london)]}"#.utf8
        ).write(to: URL(fileURLWithPath: input + "/card.card.json"))
        let rendered = try Tools.run(
            Tools.cardrender, ["render", input, "--out", output, "--press", "eu-a6-fogra39", "--no-cache"])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        let ours = try Tools.run(
            Tools.cardrender, ["preflight", output + "/card.print.pdf", "--press", "eu-a6-fogra39", "--postal"])
        #expect(ours.status == 0, "\(ours.stdoutText)")
        #expect(ours.stdoutText.contains("ok   postal:"), "\(ours.stdoutText)")
        // The same back drawn by Ghostscript, as a press's RIP draws it, passes on its pixels.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/gs")
            || ProcessInfo.processInfo.environment["CARDRENDER_REQUIRE_TOOLS"] == "1"
        {
            let png = output + "/back.png"
            let drawn = try Tools.run(
                "/usr/bin/gs",
                [
                    "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=png16m", "-r150", "-dFirstPage=2",
                    "-dLastPage=2", "-sOutputFile=\(png)", output + "/card.print.pdf",
                ])
            #expect(drawn.status == 0, "\(drawn.stderr)")
            let back = try Fixtures.load(png)
            let pixels = MemoryImage(width: back.width, height: back.height, pixels: try back.eightBitPixels())
            // eu-a6-fogra39: A6 with 3 mm bleed.
            #expect(PostalCheck(width: 148, height: 105, bleed: 3).violations(of: pixels, hasAddress: true).isEmpty)
        }

        // A back with a rule along its bottom (in the coding strip) and a logo beside the stamp.
        let points = { (millimetres: Double) in PDFSyntax.number(millimetres / 25.4 * 72) }
        let document = try QPDFDocument()
        let boxes = "/MediaBox [0 0 \(points(148)) \(points(105))] /TrimBox [0 0 \(points(148)) \(points(105))]"
        try document.addPage(boxes, xObjects: [], content: "0 0 0 1 k 0 0 10 10 re f\n")
        try document.addPage(
            boxes, xObjects: [],
            content: "0 0 0 1 k \(points(10)) \(points(5)) \(points(120)) 1 re f\n"
                + "0 0 0 0.6 k \(points(80)) \(points(80)) \(points(10)) \(points(10)) re f\n"
                + "0 0 0 1 k \(points(80)) \(points(20)) \(points(40)) \(points(4)) re f\n")
        let broken = input + "/broken.pdf"
        try Data(try document.write(version: "1.3")).write(to: URL(fileURLWithPath: broken))
        let theirs = try Tools.run(Tools.cardrender, ["preflight", broken, "--postal"])
        #expect(theirs.status == 1)
        let line = try #require(theirs.stdoutText.split(separator: "\n").first { $0.contains("postal:") })
        #expect(line.contains("FAIL"), "\(line)")
        #expect(line.contains("coding strip: 1 marks of ink"), "\(line)")
        #expect(line.contains("franking zone: 1 marks of ink outside the stamp box"), "\(line)")
        #expect(!line.contains("address zone: no address"), "\(line)")
    }
}
