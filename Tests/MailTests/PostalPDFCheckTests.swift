import Foundation
import PressKit
import PressPDF
import Testing

/// The postal check on a PDF page's marks (`PostalCheck.violations(ofPDF:)`): what a hostile
/// or careless PDF paints is found, never slipped past.
struct PostalPDFCheckTests {
    static func points(_ millimetres: Double) -> String { PDFSyntax.number(millimetres / 25.4 * 72) }

    /// A one-page A6 landscape PDF painting `content`, with an address inside the zone.
    static func check(_ content: String, resources: String = "") throws -> [String] {
        let document = try QPDFDocument()
        let box = "[0 0 \(points(148)) \(points(105))]"
        let address = "0 0 0 1 k \(points(80)) \(points(20)) \(points(40)) \(points(4)) re f\n"
        try document.addPage("/MediaBox \(box) /TrimBox \(box)\(resources)", xObjects: [], content: address + content)
        let bytes = try document.write(version: "1.3")
        return PostalCheck.violations(ofPDF: bytes, name: "test.pdf", page: nil, hasAddress: true).map(\.zone)
    }

    @Test func aCleanBackPasses() throws {
        #expect(try Self.check("") == [])
        // White paint is no ink, even in the strip.
        #expect(try Self.check("1 g 0 0 \(Self.points(148)) \(Self.points(15)) re f\n") == [])
    }

    @Test func inkInTheStripIsFoundHoweverItIsPainted() throws {
        let strip = "\(Self.points(20)) \(Self.points(5)) \(Self.points(30)) \(Self.points(2))"
        // A spot colour at full strength is ink, not the paper its one component would be as gray.
        #expect(try Self.check("/CS0 cs 1 scn \(strip) re f\n") == ["coding strip"])
        // A rectangle turned by the matrix: its four corners, not two.
        #expect(
            try Self.check("q 0 1 -1 0 \(Self.points(100)) 0 cm 0 0 0 1 k 1 -10 2 10 re f Q\n") == ["coding strip"])
        // A stroked line just above the strip reaches into it by half its width.
        let line =
            "0 0 0 1 k 0 0 0 1 K 10 w \(Self.points(30)) \(Self.points(16)) m \(Self.points(60)) \(Self.points(16)) l S\n"
        #expect(try Self.check(line) == ["coding strip"])
        // An inline image is a mark of unknown colour.
        let inline =
            "q \(Self.points(10)) 0 0 \(Self.points(5)) \(Self.points(40)) \(Self.points(3)) cm BI /W 1 /H 1 /CS /G /BPC 8 ID \u{0} EI Q\n"
        #expect(try Self.check(inline) == ["coding strip"])
    }

    @Test func numbersPDFCannotWriteAreRefusedNotIgnored() throws {
        #expect(try Self.check("0 0 0 1 k -nan -nan 100 100 re f\n") == ["structure"])
        #expect(try Self.check("q 1e999 0 0 1 0 0 cm 0 0 0 1 k 0 0 10 10 re f Q\n") == ["structure"])
    }
}

/// A page shown turned: refused, never checked on the wrong axes.
struct PostalPDFPageTests {
    @Test func aPageShownTurnedIsRefusedNotReadOnTheWrongAxes() throws {
        let document = try QPDFDocument()
        let box = "[0 0 \(PostalPDFCheckTests.points(148)) \(PostalPDFCheckTests.points(105))]"
        let address =
            "0 0 0 1 k \(PostalPDFCheckTests.points(80)) \(PostalPDFCheckTests.points(20)) "
            + "\(PostalPDFCheckTests.points(40)) \(PostalPDFCheckTests.points(4)) re f\n"
        try document.addPage("/MediaBox \(box) /Rotate 90", xObjects: [], content: address)
        let turned = PostalCheck.violations(
            ofPDF: try document.write(version: "1.3"), name: "turned.pdf", page: nil, hasAddress: true)
        #expect(turned.map(\.zone) == ["orientation"])
    }
}
