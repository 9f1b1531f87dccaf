import Mail
import PressKit

extension CardSpec {
    /// How the post carries this card, `format` being the card's format as printed (a
    /// press's, when one sets it): a UPU postcard, or a letter abroad.
    public func mailClass(format: CardFormat? = nil) -> MailClass { (format ?? self.format).mailClass }

    /// What the post may do with this card that the customer should hear about, one sentence
    /// each: an international card without a sender's address (undeliverable mail abroad
    /// without one may be destroyed, and print APIs require it), a card that travels abroad
    /// as a letter.
    /// - Parameter postedFrom: the country of posting, ISO alpha-2.
    public func postalWarnings(postedFrom: String, format: CardFormat? = nil) -> [String] {
        var warnings: [String] = []
        let origin = Country.named(code: postedFrom)
        let abroad = recipients.enumerated().filter { _, recipient in
            guard let origin, let destination = try? Country.resolve(recipient.country) else { return true }
            return !destination.isDomestic(postedFrom: origin)
        }
        if sender == nil, !abroad.isEmpty {
            let who =
                recipients.count == 1
                ? "the recipient" : abroad.map { "recipient \($0.offset + 1)" }.joined(separator: ", ")
            warnings.append(
                "\(who) \(abroad.count == 1 ? "is" : "are") abroad and the card has no sender: add one, or a card "
                    + "the post cannot deliver may be destroyed instead of returned.")
        }
        // What the destination's post asks for and the address lacks (a US state).
        for (index, recipient) in recipients.enumerated() {
            guard let origin, let block = try? AddressBlock(recipient, postedFrom: origin) else { continue }
            let owner = recipients.count == 1 ? "the recipient" : "recipient \(index + 1)"
            warnings += block.warnings.map { $0.sentence(owner: owner) }
        }
        let format = format ?? self.format
        if !abroad.isEmpty, format.mailClass == .letter {
            let size = format.size.millimetres
            warnings.append(
                "a \(Self.number(size.long)) x \(Self.number(size.short)) mm card is not a UPU postcard "
                    + "(90-120 x 140-235 mm): abroad it travels, and is charged, as a letter.")
        }
        return warnings
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
