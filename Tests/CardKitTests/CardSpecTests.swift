import CardKit
import Foundation
import PressKit
import TestSupport
import Testing

@Suite(.libvips) struct CardSpecTests {
    func parse(_ json: String) throws(CardSpecError) -> CardSpec {
        try CardSpec.parse(Data(json.utf8), file: "a.card.json")
    }

    @Test(arguments: [("4x6in", 1800, 1200), ("5x7IN", 2100, 1500), ("6x9in", 2700, 1800), ("a6", 1748, 1240)])
    func theUSCardSizesAreSpecSizes(name: String, long: Int, short: Int) throws {
        let spec = try parse(#"{"version": 1, "card": {"size": "\#(name)"}}"#)
        #expect(spec.format.trimPixels(.landscape) == (long, short))
        #expect(spec.format.trimPixels(.portrait) == (short, long))
    }

    /// Line breaks, tabs and every script's characters are a message's own; only controls are refused.
    @Test func aMessageKeepsLineBreaksTabsAndAnyScript() throws {
        let spec = try parse(#"{"version": 1, "message": {"text": "Été\r\n\tمرحبا 👍🏽\u2028你好"}}"#)
        #expect(spec.message?.text == "Été\r\n\tمرحبا 👍🏽\u{2028}你好")
    }

    @Test func fullSpecParses() throws {
        let spec = try parse(
            """
            {"version": 1, "photo": "beach.jpg",
             "transform": {"scale": 1.2, "rotation": -8, "offset": {"x": 0.05, "y": 0}},
             "frame": "travel/airmail", "effect": {"name": "sepia", "strength": 0.6},
             "card": {"size": "a6", "dpi": 300, "bleed": 3}, "background": "#102030"}
            """)
        #expect(spec.photo == "beach.jpg")
        #expect(spec.placement == .transform(scale: 1.2, rotation: -8, offsetX: 0.05, offsetY: 0))
        #expect(spec.frame == "travel/airmail")
        #expect(spec.effect == ColourEffect(.sepia, strength: 0.6))
        #expect(spec.format == CardFormat(size: .a6, dpi: 300, bleed: 3))
        #expect(spec.background == [16, 32, 48])
        let minimal = try parse(
            #"{"version": 1, "crop": {"x": 0, "y": 10, "width": 20, "height": 14}, "effect": "bw"}"#)
        #expect(minimal.placement == .crop(x: 0, y: 10, width: 20, height: 14))
        #expect(minimal.effect == ColourEffect(.bw))
        #expect(minimal.format == CardFormat())
    }

    @Test(arguments: [
        (
            #"{"photo": "a.jpg"}"#,
            "version: expected a whole number of at least 1, received nothing (the field is missing)."
        ),
        (#"{"version": 2}"#, "version: expected version 1, received 2."),
        (
            #"{"version": 1, "effect": "blue"}"#,
            "effect: expected one of normal, bw, sepia, vintage, received \"blue\"."
        ),
        (
            #"{"version": 1, "effect": {"name": "bw", "strength": 1.5}}"#,
            "effect.strength: expected a number from 0 to 1, received 1.5."
        ),
        (
            #"{"version": 1, "card": {"dpi": "300dpi"}}"#,
            "card.dpi: expected a whole number from 72 to 1200, received \"300dpi\"."
        ),
        (
            #"{"version": 1, "card": {"size": "a4"}}"#,
            "card.size: expected one of a6, a5, 4x6in, 5x7in, 6x9in, received \"a4\"."
        ),
        (
            #"{"version": 1, "crop": {"x": 0, "y": 0, "width": 0, "height": 5}}"#,
            "crop.width: expected a whole number of at least 1, received 0."
        ),
        (
            #"{"version": 1, "crop": {"x": 0, "y": 0, "width": 5, "height": 5}, "transform": {}}"#,
            "crop: and transform cannot both be given; use one."
        ),
        (
            #"{"version": 1, "transform": {"scale": 0}}"#,
            "transform.scale: expected a number from 0.05 to 20, received 0."
        ),
        (
            #"{"version": 1, "efect": "bw"}"#,
            "efect: is not a known field; expected one of background, card, crop, effect, frame, message, photo, recipients, sender, transform, version."
        ),
        (
            #"{"version": 1, "background": "white"}"#,
            "background: expected a colour as \"#rrggbb\", received \"white\"."
        ),
        ("{not json", "(document): is not valid JSON."),
        // Text reaches C as NUL-terminated strings: a NUL would silently cut the card short.
        (
            #"{"version": 1, "message": {"text": "null\u0000byte"}}"#,
            "message.text: has the control character U+0000 at character 5; a message holds text, tabs and line breaks only."
        ),
        (
            #"{"version": 1, "message": {"text": "bell\u0007"}}"#,
            "message.text: has the control character U+0007 at character 5; a message holds text, tabs and line breaks only."
        ),
        (
            #"{"version": 1, "recipients": [{"name": "Ada\nLovelace", "address1": "a", "postcode": "1", "city": "c", "country": "d"}]}"#,
            "recipients[0].name: has the control character U+000A at character 4; this field is one line of text."
        ),
        (
            #"{"version": 1, "recipients": [{"name": "A", "address1": "a\u2028b", "postcode": "1", "city": "c", "country": "d"}]}"#,
            "recipients[0].address1: has the control character U+2028 at character 2; this field is one line of text."
        ),
        (
            #"{"version": 1, "photo": "a.jpg\u0000../../etc/passwd"}"#,
            "photo: has the control character U+0000 at character 6; this field is one line of text."
        ),
        (
            #"{"version": 1, "recipients": [{"name": "  ", "address1": "1 rue X", "postcode": "75001", "city": "Paris", "country": "FR"}]}"#,
            #"recipients[0].name: expected a non-empty string, received "  "."#
        ),
        (
            #"{"version": 1, "sender": {"name": "Ana 🌻", "address1": "1 rue X", "postcode": "75001", "city": "Paris", "country": "FR"}}"#,
            "sender.name: the sender, name: has the pictograph U+1F33B (🌻); an address holds letters, digits and "
                + "punctuation only, as the post's machines read them."
        ),
        (
            #"{"version": 1, "recipients": [{"name": "A", "address1": "1 rue X", "postcode": "75001", "city": "Paris", "country": "Frnace"}]}"#,
            #"recipients[0].country: recipient 1, country: "Frnace" is not a country or territory we know; did you mean France (FR)?"#
        ),
    ])
    func errorsNameTheFieldExpectedAndReceived(json: String, message: String) {
        let error = #expect(throws: CardSpecError.self) { try parse(json) }
        #expect(error?.description == "a.card.json: " + message)
    }
}
