import CardKit
import Foundation
import ImageCore
import Mail
import PressKit
import TestSupport
import Testing
import VipsKit

/// One spec cannot hold a worker: recipients, message bytes and the canvas are limited
/// before any pixel work (the photo's header is read first, then the spec is refused).
@Suite(.libvips) struct CardLimitsTests {
    static let photo: ImageData = {
        let directory = NSTemporaryDirectory() + "card-limits-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try? Synthetic.quadrants(directory + "/q.jpg")
        return ImageData(
            copying: (try? Data(contentsOf: URL(fileURLWithPath: directory + "/q.jpg"))) ?? Data(), name: "q.jpg")
    }()

    func render(_ spec: CardSpec, limits: CardLimits = .default, maxPixels: Int = 120_000_000) throws {
        let renderer = CardRenderer(
            catalogue: nil, settings: CardSettings(policy: DecodePolicy(maxPixels: maxPixels)), limits: limits)
        _ = try renderer.render(photo: Self.photo, spec: spec, specFile: "big.card.json")
    }

    @Test func tooManyRecipientsAreRefusedBeforeDecoding() throws {
        let recipient = Recipient(name: "A", address1: "1 rue", postcode: "1", city: "c", country: "F")
        var spec = CardSpec()
        spec.recipients = Array(repeating: recipient, count: 2000)
        let error = #expect(throws: CardSpecError.self) { try render(spec) }
        #expect(
            error?.description
                == "big.card.json: recipients: has 2000 recipients; a card may have 50 at most (--max-recipients).")
        spec.recipients = Array(repeating: recipient, count: 3)
        let lowered = #expect(throws: CardSpecError.self) { try render(spec, limits: CardLimits(maxRecipients: 2)) }
        #expect(lowered?.field == "recipients")
    }

    @Test func longMessagesAreRefusedBeforeDecoding() throws {
        var spec = CardSpec()
        spec.message = CardMessage(text: String(repeating: "é", count: 2049))
        let error = #expect(throws: CardSpecError.self) { try render(spec) }
        #expect(
            error?.description
                == "big.card.json: message.text: is 4098 bytes of UTF-8; a message may have 4096 at most (--max-message-bytes)."
        )
        var recipient = Recipient(name: "A", address1: "1 rue", postcode: "1", city: "c", country: "F")
        recipient.locality = String(repeating: "x", count: 300)
        spec = CardSpec()
        spec.recipients = [recipient]
        let field = #expect(throws: CardSpecError.self) { try render(spec) }
        #expect(field?.field == "recipients[0].city")
    }

    /// `--max-pixels` covers the card's canvas as well as the photo.
    @Test func theCanvasIsHeldToThePixelLimit() throws {
        var spec = CardSpec()
        spec.format = CardFormat(size: .a5, dpi: 1200, bleed: 10)
        let error = #expect(throws: CardSpecError.self) { try render(spec, maxPixels: 50_000_000) }
        #expect(error?.field == "card")
        #expect(
            error?.description.contains(
                "makes a canvas of 10865 x 7936 = 86224640 pixels (a5 at 1200 dpi with 10.0 mm bleed), over the limit of 50000000 (--max-pixels)"
            ) == true, "\(error?.description ?? "")")
        // Within the default limit the same canvas passes the check.
        try CardLimits.default.check(spec, maxPixels: 120_000_000, specFile: "big.card.json")
    }
}
