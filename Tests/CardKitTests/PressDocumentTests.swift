import CardKit
import FastPath
import Foundation
import PressKit
import PressPDF
import TestSupport
import Testing

/// The press PDF's parts, read back with libqpdf: crop marks in a slug when a profile asks
/// for them, and preflight's verdict on that file.
struct PressDocumentTests {
    static let profilePath = Fixtures.root.appendingPathComponent("press/profiles/FOGRA39-TAC300.icc").path

    static func press(cropMarks: Bool, format: PressProfile.Format = .pdfX1a) throws -> PressProfile {
        let condition = PressCondition(
            identifier: "FOGRA39", description: "test", inkLimit: 300,
            profile: [UInt8](try Data(contentsOf: URL(fileURLWithPath: profilePath))), profileName: "FOGRA39")
        return PressProfile(
            name: "marked", source: "tests", size: .a6, bleed: 3, safeZone: 5, format: format, condition: condition,
            cropMarks: cropMarks)
    }

    /// A grey photo side at the profile's size (A6 + 3 mm bleed at 300 dpi).
    static func photo(_ press: PressProfile) -> MemoryImage {
        let size = press.cardFormat.printPixels(.landscape)
        return MemoryImage(width: size.width, height: size.height, colour: [128, 128, 128])
    }

    func boxes(_ document: QPDFDocument, page: Int) -> [String: [Double]] {
        var boxes: [String: [Double]] = [:]
        for key in ["/MediaBox", "/BleedBox", "/TrimBox"] {
            boxes[key] = document.value(key, in: document.page(page)).flatMap(document.items)?.compactMap(
                document.number)
        }
        return boxes
    }

    @Test func cropMarksSitInASlugAroundTheBleed() throws {
        let press = try Self.press(cropMarks: true)
        let writer = PressDocument(press: press)
        let pdf = try writer.pdf(
            photo: try writer.separate(Self.photo(press), quality: 90), back: nil, title: "marked")
        let document = try QPDFDocument(reading: pdf, name: "marked.pdf")
        let box = boxes(document, page: 0)
        let points = { (millimetres: Double) in millimetres / 25.4 * 72 }
        let slug = points(SheetLayout.markOffset + SheetLayout.markLength)
        let media = try #require(box["/MediaBox"]), bleed = try #require(box["/BleedBox"]),
            trim = try #require(box["/TrimBox"])
        #expect(abs(bleed[0] - slug) < 0.01 && abs(media[2] - bleed[2] - slug) < 0.01, "\(media) \(bleed)")
        #expect(abs(trim[0] - bleed[0] - points(3)) < 0.3, "\(trim) \(bleed)")
        #expect(abs(trim[2] - trim[0] - points(148)) < 0.5 && abs(trim[3] - trim[1] - points(105)) < 0.5)
        // Eight marks, stroked in black ink alone, outside the bleed box.
        let content = String(decoding: try document.contents(of: document.page(0)), as: UTF8.self)
        #expect(content.contains("0 0 0 1 K") && content.components(separatedBy: " l\n").count - 1 == 8)
        #expect(Preflight(press: press).check(pdf, name: "marked.pdf").passed)

        // Without marks: media box = bleed box.
        let plain = try Self.press(cropMarks: false)
        let unmarked = PressDocument(press: plain)
        let bytes = try unmarked.pdf(
            photo: try unmarked.separate(Self.photo(plain), quality: 90), back: nil, title: "plain")
        let plainBoxes = boxes(try QPDFDocument(reading: bytes, name: "plain.pdf"), page: 0)
        #expect(plainBoxes["/MediaBox"] == plainBoxes["/BleedBox"])
    }

    /// A title from a file name (`&`, `<`, control characters, accents) is whole in Info and
    /// well-formed XML in PDF/X-4's XMP, which has no way to write most control characters.
    @Test func aFileNameOfAnyCharactersMakesWellFormedMetadata() throws {
        let press = try Self.press(cropMarks: false, format: .pdfX4)
        let writer = PressDocument(press: press)
        let title = "a&<\u{1}\u{1B}b> (é)\u{FFFF}.jpg"
        let pdf = try writer.pdf(photo: try writer.separate(Self.photo(press), quality: 90), back: nil, title: title)
        let document = try QPDFDocument(reading: pdf, name: "title.pdf")
        let info = try #require(document.value("/Info", in: document.trailer))
        #expect(document.string(try #require(document.value("/Title", in: info))) == title)
        let xmp = try document.data(of: try #require(document.value("/Metadata", in: document.root)))
        #expect(!xmp.contains { $0 < 0x20 && ![0x09, 0x0A, 0x0D].contains($0) })
        #expect(
            String(decoding: xmp, as: UTF8.self).contains(
                "<rdf:li xml:lang=\"x-default\">a&amp;&lt;b&gt; (é).jpg</rdf:li>"))
    }

    /// libqpdf decodes a stream whole, with no limit: `QPDFDocument` bounds the decoded size
    /// first (a Flate stream counted exactly, LZW by the most it can expand).
    @Test func streamsAreDecodedOnlyWithinTheirLimit() throws {
        let spaces = [UInt8](repeating: 0x20, count: 100_000)
        // Ten runs of 128 "A"s (RunLengthDecode: 129 = the next byte 128 times; 128 ends it).
        let runs = Array([[UInt8]](repeating: [129, 0x41], count: 10).joined()) + [128]
        let writer = try QPDFDocument()
        try writer.set("/Flate", of: writer.root, to: try writer.stream(spaces))  // compressed when written
        try writer.set("/Runs", of: writer.root, to: try writer.stream(runs, filter: "RunLengthDecode"))
        let reader = try QPDFDocument(reading: try writer.write(version: "1.3"), name: "streams.pdf")
        let flate = try #require(reader.value("/Flate", in: reader.root))
        #expect(reader.unparse(try #require(reader.value("/Filter", in: flate))) == "/FlateDecode")
        #expect(try reader.data(of: flate) == spaces)
        #expect(try reader.data(of: flate, limit: spaces.count) == spaces)
        #expect(throws: QPDFDocument.Failure.self) { try reader.data(of: flate, limit: spaces.count - 1) }

        // RunLength is not a filter libqpdf undoes at this level: refused unless the caller
        // decodes it itself (as an image's JPEG is kept), never read as its encoded bytes.
        let runLength = try #require(reader.value("/Runs", in: reader.root))
        #expect(throws: QPDFDocument.Failure.self) { try reader.data(of: runLength) }
        #expect(try reader.data(of: runLength, limit: runs.count, keeping: ["RunLengthDecode"]) == runs)
    }

    /// Abbreviated filter names (`/Fl`, `/AHx`, ...: PDF 1.7, 8.9.7), which libqpdf honours,
    /// are read as their full names, alone or in an array.
    @Test func abbreviatedFilterNamesAreCanonical() throws {
        let text = Array("1 0 0 rg 0 0 10 10 re f".utf8)
        let hex = Array(text.map { String(format: "%02x", $0) }.joined().utf8) + [0x3E]
        // Written by hand: libqpdf's writer would store the stream as /FlateDecode. No xref
        // table: libqpdf rebuilds it (a repair, as for any damaged file).
        let pdf =
            Array("%PDF-1.3\n1 0 obj << /Type /Catalog /Pages 2 0 R /Hex 3 0 R >> endobj\n".utf8)
            + Array("2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n".utf8)
            + Array("3 0 obj << /Length \(hex.count) /Filter [/AHx] >> stream\n".utf8) + hex
            + Array("\nendstream endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n".utf8)
        let reader = try QPDFDocument(reading: pdf, name: "abbreviated.pdf")
        let stream = try #require(reader.value("/Hex", in: reader.root))
        #expect(reader.filters(of: stream) == ["ASCIIHexDecode"])
        #expect(try reader.data(of: stream) == text)
    }

    /// The document owns the bytes libqpdf reads lazily: read from a temporary that is gone
    /// (and overwritten) before any object is asked for, it still reads them.
    @Test func aDocumentOwnsTheBytesItReads() throws {
        let writer = try QPDFDocument()
        let payload = [UInt8](repeating: 0x41, count: 50_000)
        try writer.set("/Payload", of: writer.root, to: try writer.stream(payload))
        var bytes: [UInt8]? = try writer.write(version: "1.3")
        let reader = try QPDFDocument(reading: bytes!, name: "owned.pdf")
        bytes = nil
        // Allocations of the same size are likely to reuse the freed buffer: fill them.
        let clutter = (0..<8).map { _ in [UInt8](repeating: 0xFF, count: 60_000) }
        let stream = try #require(reader.value("/Payload", in: reader.root))
        #expect(try reader.data(of: stream) == payload)
        #expect(clutter.count == 8)
    }

    @Test func numbersAndTextAreWrittenAsPDFSyntax() {
        #expect(PDFSyntax.number(419.52755905511816) == "419.5276")
        #expect(PDFSyntax.number(-0.00001) == "0" && PDFSyntax.number(12) == "12")
        #expect(PDFSyntax.text("Ada (the) \\ card") == #"(Ada \(the\) \\ card)"#)
        #expect(PDFSyntax.text("Zoë") == "<FEFF005A006F00EB>")
    }
}
