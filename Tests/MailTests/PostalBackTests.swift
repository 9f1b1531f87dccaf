import CardKit
import FastPath
import Foundation
import ImageCore
import Mail
import PressKit
import TestSupport
import Testing
import VipsKit

/// Backs for recipients in 32 countries, laid out by their posts' rules, checked on the
/// print file's pixels (`PostalCheck`) and read back with OCR (tesseract).
@Suite(.libvips) struct PostalBackTests {
    /// One address per country, with the metadata's own example postcode.
    static let codes = [
        "FR", "GB", "US", "DE", "JP", "KR", "CN", "RU", "BR", "IE", "ES", "IT", "NL", "BE", "CH", "CA", "AU", "AT",
        "PT",
        "SE", "NO", "DK", "FI", "PL", "CZ", "GR", "HU", "MX", "AR", "IN", "ZA", "NZ",
    ]
    static let format = CardFormat()
    static let tesseract = "/usr/bin/tesseract"
    static let ocrRuns =
        FileManager.default.isExecutableFile(atPath: tesseract)
        || ProcessInfo.processInfo.environment["CARDRENDER_REQUIRE_TOOLS"] == "1"

    /// A Latin-script address in `code`, with the country's example postcode and a region
    /// where its format has one.
    static func address(_ code: String) -> PostalAddress {
        let format = AddressFormat.of(code: code)
        return PostalAddress(
            name: "Claire Martin", addressLines: ["14 Harbour Road"], locality: "Kingston",
            region: format.has("S") ? "Ontario" : nil,
            postcode: format.has("Z") ? format.postcodeExamples.first : nil, country: code)
    }

    static func backPixels(_ recipient: PostalAddress) throws -> MemoryImage {
        let back = try VersoRenderer().render(
            message: CardMessage(text: "Bons baisers de Paris !"), sender: nil, recipient: recipient,
            recipientIndex: 0, format: format, specFile: "mail.card.json")
        let jpeg = try back.encoded(EncodeOptions(format: .jpeg, quality: 92, chroma: .full))
        return try jpeg.withUnsafeBytes { try JPEGCodec.decode($0, scale: 1, strict: true).image }
    }

    @Test(arguments: codes)
    func everyBackKeepsThePostsZones(code: String) throws {
        let image = try Self.backPixels(Self.address(code))
        let check = PostalCheck(width: 148, height: 105, bleed: 0)
        #expect(check.violations(of: image, hasAddress: true).isEmpty, "\(code)")
        // Ink drawn into the coding strip is found, naming the zone.
        var inked = image
        let y = image.height - Self.format.pixels(5)
        for x in (image.width / 2)..<(image.width / 2 + 40) {
            for channel in 0..<3 { inked.pixels[(y * image.width + x) * 3 + channel] = 0 }
        }
        #expect(check.violations(of: inked, hasAddress: true).map(\.zone) == ["coding strip"])
    }

    @Test func aBackWithoutItsAddressOrWithInkInTheFrankingZoneFails() throws {
        let check = PostalCheck(width: 148, height: 105, bleed: 0)
        let blank = MemoryImage(width: Self.format.pixels(148), height: Self.format.pixels(105))
        #expect(
            check.violations(of: blank, hasAddress: true).map(\.description) == [
                "address zone: no address is printed in it"
            ])
        var franked = try Self.backPixels(Self.address("GB"))
        let (x, y) = (franked.width - Self.format.pixels(60), Self.format.pixels(20))
        for channel in 0..<3 { franked.pixels[(y * franked.width + x) * 3 + channel] = 0 }
        #expect(check.violations(of: franked, hasAddress: true).map(\.zone) == ["franking zone"])
    }

    /// The address block read back from the print pixels: at least 95 % of the lines exactly,
    /// once case and accents are folded.
    @Test(.enabled(if: ocrRuns, "tesseract not installed (scripts/setup-tests.sh installs it)"))
    func theAddressesReadBackWithOCR() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ocr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let zone = PostalZones(width: 148, height: 105).addressZone
        let france = try #require(Country.named(code: "FR"))
        var expected = 0
        var read = 0
        var misses: [String] = []
        for code in Self.codes where code != "JP" && code != "KR" && code != "CN" {
            let recipient = Self.address(code)
            let block = try AddressBlock(recipient, postedFrom: france)
            let back = try VersoRenderer().render(
                message: nil, recipient: recipient, recipientIndex: 0, format: Self.format, specFile: "ocr")
            let (left, top) = (Self.format.pixels(zone.x), Self.format.pixels(zone.y))
            let crop = try back.extractArea(
                left: left, top: top, width: Self.format.pixels(zone.maxX) - left,
                height: Self.format.pixels(zone.maxY) - top)
            let png = folder.appendingPathComponent("\(code).png").path
            try crop.encoded(EncodeOptions(format: .png)).write(to: URL(fileURLWithPath: png))
            let result = try Tools.run(Self.tesseract, [png, "stdout", "-l", "eng+fra", "--psm", "6"])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = Set(result.stdoutText.split(separator: "\n").map { Self.fold(String($0)) })
            for line in block.lines {
                expected += 1
                if lines.contains(Self.fold(line.text)) { read += 1 } else { misses.append("\(code): \(line.text)") }
            }
        }
        #expect(expected >= 29 * 4)
        #expect(Double(read) >= 0.95 * Double(expected), "read \(read) of \(expected); missed \(misses)")
    }

    /// Lower case, no accents, single spaces.
    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .split(separator: " ").joined(separator: " ")
    }
}
