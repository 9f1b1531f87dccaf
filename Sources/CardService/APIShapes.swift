/// The API's shapes whose fields are null rather than absent when they have no value, as
/// `openapi.yaml` declares them (required, `type: [string, "null"]`): the generated types
/// would leave a nil field out, so these replace them (`typeOverrides` in
/// scripts/generate-openapi.sh).

/// A card: `{"id", "status", "press", "recipient", "verdict", "error", "files"}`.
struct CardShape: Codable, Hashable, Sendable {
    var id: String
    var status: String
    var press: String
    var recipient: Int?
    var verdict: String?
    var error: String?
    var files: CardFilesShape

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(status, forKey: .status)
        try container.encode(press, forKey: .press)
        try container.encode(recipient, forKey: .recipient)
        try container.encode(verdict, forKey: .verdict)
        try container.encode(error, forKey: .error)
        try container.encode(files, forKey: .files)
    }
}

/// A card's files: paths on this server, null until the card is rendered.
struct CardFilesShape: Codable, Hashable, Sendable {
    var sample: String?
    var small: String?
    var print: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sample, forKey: .sample)
        try container.encode(small, forKey: .small)
        try container.encode(print, forKey: .print)
    }
}

/// A page of cards and the cursor of the next (null on the last page).
struct CardListShape: Codable, Hashable, Sendable {
    var cards: [CardShape]
    var next: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(cards, forKey: .cards)
        try container.encode(next, forKey: .next)
    }
}

/// A card just ordered: its recipient's index, null for a card without recipients.
struct CreatedCardShape: Codable, Hashable, Sendable {
    var id: String
    var status: String
    var recipient: Int?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(status, forKey: .status)
        try container.encode(recipient, forKey: .recipient)
    }
}
