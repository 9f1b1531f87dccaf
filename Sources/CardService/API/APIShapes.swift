import CardKit
import Mail

/// The API's shapes whose fields are null rather than absent when they have no value, as
/// `openapi.yaml` declares them (required, `type: [string, "null"]`): the generated types
/// would leave a nil field out, so these replace them (`typeOverrides` in
/// scripts/generate-openapi.sh).

/// A card: `{"id", "status", "times", "press", "recipient", "verdict", "error", "files",
/// "mailClass", "warnings"}`.
struct CardShape: Codable, Hashable, Sendable {
    var id: String
    var status: String
    /// When it reached each status it has been through, RFC 3339, by status.
    var times: [String: String]
    var press: String
    var recipient: Int?
    var verdict: String?
    var error: String?
    var files: CardFilesShape
    /// `postcard` or `letter`.
    var mailClass: String
    /// The postal warnings, one sentence each.
    var warnings: [String]

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(status, forKey: .status)
        try container.encode(times, forKey: .times)
        try container.encode(press, forKey: .press)
        try container.encode(recipient, forKey: .recipient)
        try container.encode(verdict, forKey: .verdict)
        try container.encode(error, forKey: .error)
        try container.encode(files, forKey: .files)
        try container.encode(mailClass, forKey: .mailClass)
        try container.encode(warnings, forKey: .warnings)
    }
}

/// A run's deposit manifest, as `Mail` makes it: rows and counts (`DepositManifest`).
typealias DepositManifestShape = DepositManifest

/// A print run: `{"id", "press", "sheet", "cards", "sheets", "manifest", "mailed"}`, the
/// manifest null for a run made before runs kept one, `mailed` null until it is.
struct PrintRunShape: Codable, Hashable, Sendable {
    var id: String
    var press: String?
    var sheet: String?
    var cards: [String]
    var sheets: [String]
    var manifest: Components.Schemas.ManifestFiles?
    /// RFC 3339.
    var mailed: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(press, forKey: .press)
        try container.encodeIfPresent(sheet, forKey: .sheet)
        try container.encode(cards, forKey: .cards)
        try container.encode(sheets, forKey: .sheets)
        try container.encode(manifest, forKey: .manifest)
        try container.encode(mailed, forKey: .mailed)
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

/// A card spec as the API received it: the JSON kept as sent (not through generated types,
/// which would round numbers and drop what they do not know), for `CardSpec.parse` to read
/// and check field by field. `RequestValidator` has refused unknown fields by then.
struct CardSpecBody: Codable, Hashable, Sendable {
    var json: JSONValue

    init(from decoder: any Decoder) throws { json = try JSONValue(from: decoder) }

    func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}

/// An event: `{"id", "type", "timestamp", "data"}`, its data the card or the run as it was.
struct EventShape: Codable, Hashable, Sendable {
    var id: String
    var type: String
    /// RFC 3339.
    var timestamp: String
    var data: EventData

    /// The card (`card.*`), the run (`print_run.*`) or the endpoint (`webhook_endpoint.*`).
    enum EventData: Codable, Hashable, Sendable {
        case card(CardShape)
        case run(PrintRunShape)
        case endpoint(WebhookEndpointShape)

        init(from decoder: any Decoder) throws {
            // A card has a status; a run has sheets; an endpoint a URL.
            if let card = try? CardShape(from: decoder) {
                self = .card(card)
            } else if let run = try? PrintRunShape(from: decoder) {
                self = .run(run)
            } else {
                self = .endpoint(try WebhookEndpointShape(from: decoder))
            }
        }

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .card(let card): try card.encode(to: encoder)
            case .run(let run): try run.encode(to: encoder)
            case .endpoint(let endpoint): try endpoint.encode(to: encoder)
            }
        }
    }
}

/// A webhook's body, as Standard Webhooks shapes it: `{"type", "timestamp", "data"}` (the
/// event's id travels in the `webhook-id` header).
struct WebhookBody: Encodable, Sendable {
    var type: String
    var timestamp: String
    var data: EventShape.EventData
}

/// A webhook endpoint: `{"id", "url", "types", "description", "created", "disabled"}`, and
/// its `secret` only when just made or rotated.
struct WebhookEndpointShape: Codable, Hashable, Sendable {
    var id: String
    var url: String
    var types: [String]
    var description: String
    /// RFC 3339.
    var created: String
    /// RFC 3339, or null while it receives events.
    var disabled: String?
    var secret: String?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(url, forKey: .url)
        try container.encode(types, forKey: .types)
        try container.encode(description, forKey: .description)
        try container.encode(created, forKey: .created)
        try container.encode(disabled, forKey: .disabled)
        try container.encodeIfPresent(secret, forKey: .secret)
    }
}

/// A page of events, the cursor to poll with next and whether more follow at once.
struct EventListShape: Codable, Hashable, Sendable {
    var events: [EventShape]
    var next: String?
    var more: Bool

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(events, forKey: .events)
        try container.encode(next, forKey: .next)
        try container.encode(more, forKey: .more)
    }
}
