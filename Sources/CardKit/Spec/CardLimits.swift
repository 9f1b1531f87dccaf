import Mail
import PressKit

/// What one card may ask for, checked before any pixel work so that one spec cannot hold a
/// worker for minutes or take gigabytes. (The card's canvas is held to the decode policy's
/// pixel limit, the same `--max-pixels` as photos.)
public struct CardLimits: Sendable, Equatable {
    /// Recipients on one card (each is a back rendered at print size): 50.
    public var maxRecipients: Int
    /// The message's text in UTF-8 bytes: 4096 (twelve full lines of text take about 1,200;
    /// emoji sequences take up to 35 bytes each).
    public var maxMessageBytes: Int
    /// Each address field in UTF-8 bytes: 256 (a line of the address block holds about 50
    /// characters).
    public var maxAddressFieldBytes: Int

    /// The defaults: 50 recipients, 4096-byte messages, 256-byte address fields.
    public static let `default` = CardLimits()

    public init(maxRecipients: Int = 50, maxMessageBytes: Int = 4096, maxAddressFieldBytes: Int = 256) {
        self.maxRecipients = maxRecipients
        self.maxMessageBytes = maxMessageBytes
        self.maxAddressFieldBytes = maxAddressFieldBytes
    }

    /// Checks `spec` against these limits and its canvas against `maxPixels`.
    /// - Throws: `CardSpecError` naming the field, what it holds and the limit.
    public func check(_ spec: CardSpec, maxPixels: Int, specFile: String) throws(CardSpecError) {
        guard spec.recipients.count <= maxRecipients else {
            throw CardSpecError(
                file: specFile, field: "recipients",
                problem: "has \(spec.recipients.count) recipients; a card may have \(maxRecipients) at most "
                    + "(--max-recipients).")
        }
        if let message = spec.message, message.text.utf8.count > maxMessageBytes {
            throw CardSpecError(
                file: specFile, field: "message.text",
                problem: "is \(message.text.utf8.count) bytes of UTF-8; a message may have \(maxMessageBytes) "
                    + "at most (--max-message-bytes).")
        }
        let addresses = spec.recipients.enumerated().map { ("recipients[\($0.offset)]", $0.element) }
        for (path, address) in addresses + (spec.sender.map { [("sender", $0)] } ?? []) {
            for (name, text) in address.fields where text.utf8.count > maxAddressFieldBytes {
                throw CardSpecError(
                    file: specFile, field: "\(path).\(name)",
                    problem: "is \(text.utf8.count) bytes of UTF-8; an address field may have "
                        + "\(maxAddressFieldBytes) at most.")
            }
        }
        let canvas = spec.format.printPixels(.landscape)
        let pixels = canvas.width * canvas.height
        guard pixels <= maxPixels else {
            let format = spec.format
            throw CardSpecError(
                file: specFile, field: "card",
                problem: "makes a canvas of \(canvas.width) x \(canvas.height) = \(pixels) pixels "
                    + "(\(format.size.rawValue) at \(format.dpi) dpi with \(format.bleed) mm bleed), over the limit of "
                    + "\(maxPixels) (--max-pixels).")
        }
    }
}
