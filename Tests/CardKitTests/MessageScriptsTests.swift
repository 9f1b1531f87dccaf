import CardKit
import Foundation
import Mail
import TestSupport
import Testing
import VipsKit

/// What customers type on phone keyboards: emoji, other scripts, invisible characters. "No
/// box was drawn" is decided by what Pango reports (its count of unknown glyphs), not by
/// looking at pixels.
@Suite(.libvips) struct MessageScriptsTests {
    static let fallbacks = [
        "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf", "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/truetype/noto/NotoSansHebrew-Regular.ttf",
    ]
    static let fontsInstalled =
        (CardMessage.Font.allCases.map(\.file) + fallbacks).allSatisfy { FileManager.default.fileExists(atPath: $0) }
    static let noFonts: Comment = "message or fallback fonts not installed (scripts/setup.sh installs them)"
    let format = CardFormat()

    func back(_ message: CardMessage?, recipients: [Recipient] = []) throws -> VImage {
        try VersoRenderer().check(message: message, recipients: recipients, format: format, specFile: "v.card.json")
        return try VersoRenderer().render(
            message: message, recipient: recipients.last, recipientIndex: max(0, recipients.count - 1),
            format: format, specFile: "v.card.json")
    }

    static let messages = [
        "Bonjour 👋🏽 ! Merci ❤️", "日本語のテキスト", "שלום עולם", "مرحبا بالعالم", "Привет, мир", "Γειά σου κόσμε",
        "안녕하세요", "你好，世界", "Família 👨‍👩‍👧‍👦 🇫🇷 🎉", "नमस्ते दुनिया", "สวัสดีชาวโลก", "Ça va ? ½ € ™ → ✓",
    ]

    /// Every character of what customers type gets a real glyph, in every font.
    @Test(.enabled(if: fontsInstalled, noFonts), arguments: CardMessage.Font.allCases)
    func everyScriptAndEmojiHasAGlyph(font: CardMessage.Font) throws {
        for text in Self.messages {
            let block = try VersoRenderer().layOut(
                CardMessage(text: text, font: font, size: 14), areaWidth: 900, dpi: 300, specFile: "v", draw: false)
            #expect(
                block.missingCharacter == nil,
                "\(font): \(text): U+\(String(block.missingCharacter?.value ?? 0, radix: 16))")
            #expect(block.lines == 1, "\(font): \(text)")
        }
    }

    /// A character no installed font has is an error naming the spec, the field and the
    /// character, in the message and in any address field.
    @Test(.enabled(if: fontsInstalled, noFonts))
    func aCharacterNoFontHasIsRefusedByName() throws {
        let message = #expect(throws: CardSpecError.self) {
            try back(CardMessage(text: "Salut \u{F0000} !"))
        }
        #expect(
            message?.description.hasPrefix("v.card.json: message.text: has the character U+F0000") == true,
            "\(message?.description ?? "")")
        let first = Recipient(name: "A", address1: "1 rue", postcode: "75001", city: "Paris", country: "France")
        let second = Recipient(
            name: "B", address1: "2 rue", postcode: "69001", city: "Lyon \u{10FFFD}", country: "France")
        let address = #expect(throws: CardSpecError.self) { try back(nil, recipients: [first, second]) }
        #expect(address?.field == "recipients[1].city")
        #expect(address?.description.contains("U+10FFFD") == true)
    }

    /// Lines made only of invisible characters (zero-width space and joiners, direction
    /// marks) are empty lines, not an error.
    @Test(.enabled(if: fontsInstalled, noFonts))
    func invisibleLinesAreEmptyLines() throws {
        for text in ["\u{200B}", "Bonjour\n\u{200B}\u{200D}\u{200E}\nà bientôt", "\u{200F}\u{2060}\u{FEFF}"] {
            let block = try VersoRenderer().layOut(
                CardMessage(text: text), areaWidth: 900, dpi: 300, specFile: "v", draw: true)
            #expect(block.missingCharacter == nil)
            #expect(block.lines == text.split(separator: "\n", omittingEmptySubsequences: false).count)
            _ = try back(CardMessage(text: text))
        }
    }

    /// An emoji keeps its colours while the text takes the ink colour.
    @Test(.enabled(if: fontsInstalled, noFonts))
    func emojiAreDrawnInColour() throws {
        let block = try VersoRenderer().layOut(
            CardMessage(text: "❤️🌻", size: 30), areaWidth: 900, dpi: 300, specFile: "v")
        let ink = try #require(block.ink)
        var coloured = 0
        for y in stride(from: 0, to: ink.colour.height, by: 3) {
            for x in stride(from: 0, to: ink.colour.width, by: 3) {
                guard try ink.alpha.pixel(x: x, y: y)[0] > 200 else { continue }
                let pixel = try ink.colour.pixel(x: x, y: y)
                if pixel.max()! - pixel.min()! > 100 { coloured += 1 }
            }
        }
        #expect(coloured > 50, "\(coloured) saturated pixels")
    }

    /// Right-to-left paragraphs are laid out from the right of the message area.
    @Test(.enabled(if: fontsInstalled, noFonts))
    func rightToLeftTextStartsAtTheRight() throws {
        for text in ["שלום", "مرحبا"] {
            let block = try VersoRenderer().layOut(
                CardMessage(text: text, size: 20), areaWidth: 900, dpi: 300, specFile: "v")
            let ink = try #require(block.ink)
            let box = try #require(try ink.alpha.inkBox(background: [0], threshold: 60))
            #expect(box.x + box.width > 900 - 20 + ink.origin.x - 10, "\(text): \(box)")
            #expect(box.x > 600, "\(text): \(box)")
        }
    }

    /// Text without spaces (Japanese, Chinese) wraps between characters, as those scripts do.
    @Test(.enabled(if: fontsInstalled, noFonts))
    func textWithoutSpacesWraps() throws {
        let text = String(repeating: "今日はとても良い天気ですね。", count: 6)
        let block = try VersoRenderer().layOut(
            CardMessage(text: text, size: 14), areaWidth: 900, dpi: 300, specFile: "v", draw: false)
        #expect(block.lines > 1)
        #expect(block.overflowingLine == nil)
    }

    /// Digits and Latin letters are drawn by the chosen font even with the whole fallback
    /// chain behind it (an emoji font named in the chain drew digits and spaces wide).
    @Test(.enabled(if: fontsInstalled, noFonts), arguments: CardMessage.Font.allCases)
    func theChainLeavesTheChosenFontsGlyphsAlone(font: CardMessage.Font) throws {
        try TextLayout.register(fontFile: font.file)
        for text in ["150-0002 Tokyo", "75011 Paris", "12 rue des Lilas"] {
            let alone = try TextLayout.layOut(text, font: "\(font.family) 12", dpi: 300, wrapWidth: nil, draw: false)
            let chained = try TextLayout.layOut(
                text, font: font.description(size: 12), dpi: 300, wrapWidth: nil, draw: false)
            #expect(alone.width == chained.width, "\(font): \(text): \(alone.width) alone, \(chained.width) chained")
        }
    }
}
