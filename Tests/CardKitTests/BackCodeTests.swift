import CardKit
import Foundation
import ImageCore
import Mail
import TestSupport
import Testing
import VipsKit

/// The code on a card's back: a Data Matrix (ECC 200) made and found by libdmtx, drawn in the
/// bottom right corner of the message half, clear of every postal zone, and read back from
/// the back's own pixels.
@Suite(.libvips) struct BackCodeTests {
    /// 27 bytes, as the service's codes are: its prefix, then 24 others.
    static func payload(_ seed: UInt8) -> [UInt8] { [0x43, 0x52, 0x01] + (0..<24).map { UInt8($0) &* 37 &+ seed } }

    /// `symbol` drawn `module` pixels a module with a quiet zone of `quiet` modules, grey, at
    /// (`x`, `y`) in a white picture `width` x `height`.
    static func draw(
        _ symbols: [(DataMatrix, x: Int, y: Int)], module: Int, width: Int, height: Int
    ) -> [UInt8] {
        var pixels = [UInt8](repeating: 255, count: width * height)
        for (symbol, left, top) in symbols {
            for row in 0..<symbol.side {
                for column in 0..<symbol.side where symbol.isDark(row: row, column: column) {
                    for dy in 0..<module {
                        for dx in 0..<module {
                            pixels[(top + row * module + dy) * width + left + column * module + dx] = 0
                        }
                    }
                }
            }
        }
        return pixels
    }

    @Test func aSymbolHasTheECC200FinderPatternAndReadsBack() throws {
        let bytes = Self.payload(1)
        let symbol = try DataMatrix(bytes: bytes)
        #expect(symbol.side == 22)
        // The finder: the left column and the bottom row solid; the timing pattern: the top
        // row and the right column alternate, dark at the top left and the bottom right.
        for index in 0..<symbol.side {
            #expect(symbol.isDark(row: index, column: 0))
            #expect(symbol.isDark(row: symbol.side - 1, column: index))
            #expect(symbol.isDark(row: 0, column: index) == (index % 2 == 0))
            #expect(symbol.isDark(row: index, column: symbol.side - 1) == (index % 2 == 1))
        }
        let pixels = Self.draw([(symbol, 20, 20)], module: 4, width: 200, height: 160)
        let found = DataMatrix.find(
            in: pixels, width: 200, height: 160, prefix: Array(bytes.prefix(3)), side: 22, milliseconds: 2000)
        #expect(found == bytes)
        // The runs cover exactly the dark modules.
        #expect(symbol.darkRuns.reduce(0) { $0 + $1.length } == symbol.modules.filter { $0 }.count)
    }

    @Test func anotherSymbolIsSkippedForTheOneWithThePrefix() throws {
        let ours = Self.payload(9)
        var foreign = Self.payload(3)
        foreign[0] = 0x58
        let pixels = Self.draw(
            [(try DataMatrix(bytes: foreign), 10, 10), (try DataMatrix(bytes: ours), 150, 10)], module: 4,
            width: 280, height: 120)
        #expect(
            DataMatrix.find(in: pixels, width: 280, height: 120, prefix: Array(ours.prefix(3)), milliseconds: 2000)
                == ours)
        // Nothing with the prefix: nil, not the other code.
        let alone = Self.draw([(try DataMatrix(bytes: foreign), 10, 10)], module: 4, width: 140, height: 120)
        #expect(DataMatrix.find(in: alone, width: 140, height: 120, prefix: [0x43, 0x52], milliseconds: 500) == nil)
        #expect(throws: DataMatrixError.tooLong(2000)) { try DataMatrix(bytes: [UInt8](repeating: 7, count: 2000)) }
    }

    @Test func theCodeSitsInTheMessageHalfClearOfThePostalZonesAndReadsBack() throws {
        let bytes = Self.payload(5)
        let symbol = try DataMatrix(bytes: bytes)
        let format = CardFormat()
        let back = try VersoRenderer(code: symbol).render(
            message: CardMessage(text: "Bonjour de Lyon !"), sender: nil, recipient: nil, recipientIndex: 0,
            format: format, specFile: "v.card.json")
        let bleed = format.bleedPixels
        // 0.6 mm modules, whole pixels: 7 at 300 dpi; the box's bottom right corner is the
        // message area's.
        let zones = PostalZones(width: 148, height: 105)
        let module = 7
        let side = module * symbol.side
        let right = format.pixels(zones.messageArea.maxX), bottom = format.pixels(zones.messageArea.maxY)
        let (left, top) = (right - side, bottom - side)
        #expect(Double(right) < Double(format.pixels(zones.divider)))
        #expect(Double(bottom) < Double(format.pixels(zones.codingStrip.y)))
        for row in 0..<symbol.side {
            for column in 0..<symbol.side {
                let value = try back.pixel(
                    x: bleed + left + column * module + module / 2, y: bleed + top + row * module + module / 2)
                #expect((value[0] < 60) == symbol.isDark(row: row, column: column), "module \(row), \(column)")
            }
        }
        // A white quiet zone round it.
        for offset in [-4, side + 3] {
            #expect(try back.pixel(x: bleed + left + offset, y: bleed + top + side / 2)[0] > 200)
            #expect(try back.pixel(x: bleed + left + side / 2, y: bleed + top + offset)[0] > 200)
        }
        let png = try back.encoded(EncodeOptions(format: .png))
        let scanner = BackCodeScanner(policy: .default, side: 22, prefix: Array(bytes.prefix(3)))
        #expect(try scanner.message(in: ImageData(copying: png, name: "back.png")) == bytes)
        // The vector back (a press PDF's page 2) paints the same modules.
        let artwork = try VersoRenderer(code: symbol).artwork(
            message: nil, recipient: nil, recipientIndex: 0, format: format, specFile: "v.card.json")
        let squares = artwork.fills.map { $0.path.components(separatedBy: " re\n").count - 1 }
        #expect(squares.contains(symbol.darkRuns.count))
    }

    @Test func theSenderKeepsLeftOfTheCodeAndTheMessageAboveIt() throws {
        let symbol = try DataMatrix(bytes: Self.payload(2))
        let format = CardFormat()
        let sender = Recipient(
            name: "Camille Martin", address1: "12 rue des Lilas", postcode: "69003", city: "Lyon", country: "France")
        let message = CardMessage(
            text: Array(repeating: "Une ligne de plus", count: 12).joined(separator: "\n"), size: 12)
        let plain = try VersoRenderer().render(
            message: message, sender: sender, recipient: nil, recipientIndex: 0, format: format, specFile: "v")
        let coded = try VersoRenderer(code: symbol).render(
            message: message, sender: sender, recipient: nil, recipientIndex: 0, format: format, specFile: "v")
        // The same back but for the code's box: the sender, left of it, is where it was.
        let zones = PostalZones(width: 148, height: 105)
        let side = 7 * symbol.side
        let box = (
            x: format.bleedPixels + format.pixels(zones.messageArea.maxX) - side,
            y: format.bleedPixels + format.pixels(zones.messageArea.maxY) - side
        )
        let senderPart = { (image: VImage) in
            try image.extractArea(
                left: format.bleedPixels, top: box.y, width: box.x - format.bleedPixels - 10, height: side)
        }
        #expect(try senderPart(plain).meanAbsoluteDifference(to: senderPart(coded)) < 0.5)
        #expect(try senderPart(coded).inkBox(background: [255, 255, 255], threshold: 40) != nil)
        // The message, as large as it may be, ends 3 mm above the code, and less than a line
        // higher: the largest size at which 12 lines still fit beside a code.
        let lines = Array(repeating: "Une ligne", count: 12).joined(separator: "\n")
        let verso = VersoRenderer(code: symbol)
        let largest = try #require(
            (10...40).last { size in
                (try? verso.check(
                    message: CardMessage(text: lines, size: size), sender: sender, recipients: [], format: format,
                    specFile: "v")) != nil
            })
        let full = try verso.render(
            message: CardMessage(text: lines, size: largest), sender: sender, recipient: nil, recipientIndex: 0,
            format: format, specFile: "v")
        let top = format.bleedPixels + format.pixels(zones.messageArea.y)
        let left = format.bleedPixels + format.pixels(zones.messageArea.x)
        let column = try full.extractArea(left: left, top: top, width: box.x + side - left, height: box.y - top)
        let ink = try #require(try column.inkBox(background: [255, 255, 255], threshold: 40))
        let gapAbove = box.y - (top + ink.y + ink.height)
        #expect(gapAbove >= format.pixels(3) - 2, "the message ends \(gapAbove) px above the code")
        #expect(gapAbove < format.pixels(3) + largest * format.dpi / 72 * 2, "the message ends \(gapAbove) px above")
    }
}
