import HTTPTypes
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The operations of a card's life after its print run, and the events.
extension PostcardAPI {
    func mailPrintRun(_ input: Operations.MailPrintRun.Input) async throws -> Operations.MailPrintRun.Output {
        let id = input.path.id
        switch try await service.book.mailRun(owner: try owner, id: id) {
        case .notFound:
            throw Problem.notFound("The print run \(id)")
        case .mailed(let run, let changed):
            if changed {
                service.logger.info("print run \(id): mailed (\(run.cards.count) cards)")
                service.metrics.transition(to: "mailed", count: run.cards.count)
            }
            guard let mailed = try await service.book.run(owner: try owner, id: id) else {
                throw Problem.notFound("The print run \(id)")
            }
            return .ok(.init(body: .json(Self.run(mailed))))
        }
    }

    func listEvents(_ input: Operations.ListEvents.Input) async throws -> Operations.ListEvents.Output {
        let limit = input.query.limit ?? 20
        guard (1...100).contains(limit) else {
            throw Problem(.badRequest, "limit must be from 1 to 100; received \(limit).")
        }
        var after: Int?
        if let cursor = input.query.after {
            guard let number = Int(cursor), number >= 0 else {
                throw Problem(.badRequest, "after must be the next cursor of a previous page; received \(cursor).")
            }
            after = number
        }
        let kind = input.query._type.flatMap { EventRecord.Kind(rawValue: $0.rawValue) }
        let page = try await service.book.events(owner: try owner, after: after, limit: limit, kind: kind)
        let next = page.events.last.map { String($0.ownerSeq) } ?? input.query.after
        return .ok(
            .init(body: .json(EventListShape(events: page.events.compactMap(event), next: next, more: page.more))))
    }

    /// The event as the API and the webhooks show it: its card or run as it was then.
    func event(_ event: EventRecord) -> EventShape? {
        let data: EventShape.EventData
        if let card = event.card {
            data = .card(self.card(card))
        } else if let run = event.run {
            data = .run(Self.run(run))
        } else if let endpoint = event.endpoint {
            data = .endpoint(Self.endpoint(endpoint, secret: nil))
        } else {
            return nil
        }
        return EventShape(
            id: event.id, type: event.kind.rawValue, timestamp: ServiceClock.rfc3339(event.created), data: data)
    }

    /// The message a webhook carries for `event`: `{"type", "timestamp", "data"}`, keys sorted.
    func webhookBody(_ event: EventRecord) -> Data? {
        guard let shown = self.event(event) else { return nil }
        return try? Self.json(WebhookBody(type: shown.type, timestamp: shown.timestamp, data: shown.data))
    }
}
