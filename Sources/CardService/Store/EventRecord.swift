#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Something that happened to a card or a print run, as the database keeps it: written in the
/// transaction that made the change, numbered in the order those commit (`seq`, and per key
/// `ownerSeq`, the cursor of `GET /v1/events`), with the card's public part or the run as it
/// was then (`state`, JSON).
struct EventRecord: Sendable, Equatable {
    /// What happened, as the events are named (docs/service.md, "Events").
    enum Kind: String, Sendable, CaseIterable, Codable {
        case cardQueued = "card.queued"
        case cardReady = "card.ready"
        case cardFailed = "card.failed"
        case cardCancelled = "card.cancelled"
        case cardPrinted = "card.printed"
        case cardMailed = "card.mailed"
        case cardReturned = "card.returned"
        case cardDelivered = "card.delivered"
        case printRunCreated = "print_run.created"
        case printRunMailed = "print_run.mailed"
        case webhookEndpointDisabled = "webhook_endpoint.disabled"

        /// The event of a card reaching `status`, for the statuses that have one.
        static func card(_ status: CardRecord.Status) -> Kind? {
            switch status {
            case .queued: .cardQueued
            case .ready: .cardReady
            case .failed: .cardFailed
            case .cancelled: .cardCancelled
            case .printed: .cardPrinted
            case .mailed: .cardMailed
            case .returned: .cardReturned
            case .delivered: .cardDelivered
            case .rendering: nil
            }
        }

        /// Whether the event's subject is a print run.
        var isRun: Bool { rawValue.hasPrefix("print_run.") }

        /// Whether the event's subject is a card.
        var isCard: Bool { rawValue.hasPrefix("card.") }
    }

    /// The order events committed in, over every key: the order a card's webhooks are sent in.
    let seq: Int
    /// The order of this key's events: the cursor of `GET /v1/events` (another key's volume
    /// cannot be read from it).
    let ownerSeq: Int
    /// `evt_` and 128 random bits: the webhook's `webhook-id`.
    let id: String
    let owner: String
    let kind: Kind
    /// The card's or run's id.
    let subject: String
    /// The `PublicCard`, `PrintRunRecord` or endpoint as JSON, as it was when the event happened.
    let state: String
    /// Milliseconds since 1970.
    let created: Int

    /// The columns an event is read from.
    static let columns = columns(of: nil)

    /// The columns an event is read from, each of the table named `alias` when given.
    static func columns(of alias: String?) -> String {
        let prefix = alias.map { $0 + "." } ?? ""
        return ["seq", "owner_seq", "id", "owner", "type", "subject", "state", "created"].map { prefix + $0 }
            .joined(separator: ", ")
    }

    /// An event not yet written: what happened and the record as it is now.
    struct New: Sendable {
        let kind: Kind
        let owner: String
        let subject: String
        let state: String

        /// The card `card` reaching its status now (its public part: no spec, no address).
        static func card(_ card: CardRecord) -> New? {
            Kind.card(card.status).map {
                New(kind: $0, owner: card.owner, subject: card.id, state: EventRecord.json(PublicCard(card)))
            }
        }

        /// The endpoint `endpoint` disabled now (its secrets never written into the event).
        static func disabled(_ endpoint: WebhookEndpointRecord) -> New {
            var shown = endpoint
            shown.secret = ""
            shown.previousSecret = nil
            return New(
                kind: .webhookEndpointDisabled, owner: endpoint.owner, subject: endpoint.id,
                state: EventRecord.json(shown))
        }

        /// `kind` happening to the run `run`.
        static func run(_ kind: Kind, _ run: PrintRunRecord) -> New {
            New(kind: kind, owner: run.owner, subject: run.id, state: EventRecord.json(run))
        }
    }

    /// The card this event carries, for a card event.
    var card: PublicCard? {
        kind.isCard ? try? JSONDecoder().decode(PublicCard.self, from: Data(state.utf8)) : nil
    }

    /// The endpoint this event carries, for a webhook endpoint's event.
    var endpoint: WebhookEndpointRecord? {
        kind == .webhookEndpointDisabled
            ? try? JSONDecoder().decode(WebhookEndpointRecord.self, from: Data(state.utf8)) : nil
    }

    /// The run this event carries, for a print run event.
    var run: PrintRunRecord? {
        kind.isRun ? try? JSONDecoder().decode(PrintRunRecord.self, from: Data(state.utf8)) : nil
    }

    /// A record as the JSON an event keeps (keys sorted: the same record, the same text).
    static func json(_ record: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // A record of strings and integers always encodes.
        return (try? encoder.encode(record)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
