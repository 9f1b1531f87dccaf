/// A card as its events keep it: what `GET /v1/cards/{id}` shows, and nothing of its photo,
/// spec, message or address (an event outlives the need for those, and goes to webhooks).
struct PublicCard: Sendable, Equatable, Codable {
    let id: String
    let press: String
    /// The recipient's index in the ordered spec, or nil for a card without recipients.
    let recipient: Int?
    let status: CardRecord.Status
    let verdict: String?
    let error: String?
    let created: Int
    /// When the card reached each status that keeps a time (milliseconds since 1970).
    let times: [CardRecord.Status: Int]
    /// `postcard` or `letter`, decided when the card was ordered (nil in events written
    /// before cards kept it).
    let mailClass: String?
    /// The postal warnings, decided when the card was ordered (nil as `mailClass`).
    let warnings: [String]?

    /// The public part of `card`.
    init(_ card: CardRecord) {
        id = card.id
        press = card.press
        recipient = card.recipient
        status = card.status
        verdict = card.verdict
        error = card.error
        created = card.created
        times = card.times
        mailClass = card.mailClass
        warnings = card.warnings
    }
}
