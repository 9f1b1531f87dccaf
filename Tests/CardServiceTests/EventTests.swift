import Foundation
import NIOHTTP1
import TestSupport
import Testing

@testable import CardService

/// A card's life, from order to letterbox, told by its events: each state change writes its
/// event in the same transaction, numbered in the order they commit, each carrying the card
/// (or the run) as it was then; `GET /v1/events` lists them by cursor, on SQLite and on
/// PostgreSQL.
@Suite(
    .libvips,
    .enabled(
        if: FileManager.default.fileExists(atPath: Fixtures.photo("photos/phone-4032x3024.jpg")),
        "../shared/corpus is absent"))
struct EventTests {
    /// Every event after `cursor`, polled a page of `limit` at a time; and the last cursor.
    static func events(
        _ live: LiveService, key: String, after cursor: String? = nil, limit: Int = 3, query: String = ""
    )
        async throws -> (events: [[String: Any]], next: String?)
    {
        var all: [[String: Any]] = []
        var next = cursor
        while true {
            let page = try await live.send(
                .GET, "/v1/events?limit=\(limit)\(next.map { "&after=\($0)" } ?? "")\(query)", key: key)
            #expect(page.status == 200, "\(page.text)")
            let events = page.json["events"] as? [[String: Any]] ?? []
            all += events
            next = page.json["next"] as? String ?? next
            if page.json["more"] as? Bool != true { return (all, next) }
        }
    }

    @Test(
        "order, ready, print run, mailed: each card's events in order, each with the card as it was",
        arguments: DatabaseKind.available)
    func aCardsLife(database: DatabaseKind) async throws {
        try await LiveService.with(database) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let other = try await live.service.book.createKey(name: "other").secret
            let photo = try await live.upload(ServiceAPITests.photo, key: key)
            let order = #"{"spec": \#(ServiceAPITests.spec(photo: photo, recipients: 2)), "press": "eu-a6-fogra39"}"#
            let placed = try await live.send(.POST, "/v1/cards", key: key, body: Data(order.utf8))
            #expect(placed.status == 202)
            let ids = try #require(placed.json["cards"] as? [[String: Any]]).compactMap { $0["id"] as? String }
            #expect(ids.count == 2)
            for id in ids { #expect(try await live.settled(id, key: key)["status"] as? String == "ready") }
            let run = try await live.send(
                .POST, "/v1/print-runs", key: key, body: Data(#"{"press": "eu-a6-fogra39", "sheet": "sra3"}"#.utf8))
            #expect(run.status == 201)
            #expect(run.json.keys.contains("mailed") && run.json["mailed"] is NSNull)
            let runID = try #require(run.json["id"] as? String)
            let (beforeMail, cursor) = try await Self.events(live, key: key)
            // Queued, ready and printed for each card, and the run created.
            let typesBefore = beforeMail.map { $0["type"] as? String ?? "" }
            #expect(typesBefore.count == 7, "\(typesBefore)")

            let mailed = try await live.send(.POST, "/v1/print-runs/\(runID)/mailed", key: key)
            #expect(mailed.status == 200, "\(mailed.text)")
            let mailedAt = try #require(mailed.json["mailed"] as? String)
            #expect(mailedAt.hasSuffix("Z") && mailedAt.count == 24, "\(mailedAt)")
            // Again: the same run, nothing new.
            let again = try await live.send(.POST, "/v1/print-runs/\(runID)/mailed", key: key)
            #expect(again.status == 200 && again.json["mailed"] as? String == mailedAt)
            // Another key's run is not found.
            #expect(try await live.send(.POST, "/v1/print-runs/\(runID)/mailed", key: other).status == 404)

            // Polling on from the cursor gives only what happened since.
            let (afterMail, last) = try await Self.events(live, key: key, after: cursor)
            #expect(afterMail.map { $0["type"] as? String } == ["card.mailed", "card.mailed", "print_run.mailed"])
            let all = beforeMail + afterMail
            // Nothing more: an empty page keeps the cursor.
            let empty = try await live.send(.GET, "/v1/events?after=\(try #require(last))", key: key)
            #expect((empty.json["events"] as? [Any])?.isEmpty == true && empty.json["next"] as? String == last)
            #expect(empty.json["more"] as? Bool == false)

            // Each card's events in the order it lived them, each with the card as it was.
            for id in ids {
                let mine = all.filter { ($0["data"] as? [String: Any])?["id"] as? String == id }
                #expect(
                    mine.map { $0["type"] as? String }
                        == ["card.queued", "card.ready", "card.printed", "card.mailed"], "\(mine)")
                for event in mine {
                    let data = try #require(event["data"] as? [String: Any])
                    #expect("card." + (data["status"] as? String ?? "") == event["type"] as? String)
                    #expect((event["id"] as? String)?.hasPrefix("evt_") == true)
                    #expect((event["timestamp"] as? String)?.hasSuffix("Z") == true)
                }
                let card = try await live.send(.GET, "/v1/cards/\(id)", key: key).json
                #expect(card["status"] as? String == "mailed")
                let times = try #require(card["times"] as? [String: String])
                #expect(Set(times.keys) == ["queued", "ready", "printed", "mailed"], "\(times)")
                #expect(times["queued"]! <= times["ready"]! && times["ready"]! <= times["printed"]!)
                #expect(times["mailed"] == mailedAt)
                // A mailed card keeps its files and cannot be cancelled.
                #expect((card["files"] as? [String: Any])?["print"] is String)
                #expect(try await live.send(.DELETE, "/v1/cards/\(id)", key: key).status == 409)
            }
            let runEvents = all.filter { ($0["type"] as? String)?.hasPrefix("print_run.") == true }
            #expect(runEvents.map { $0["type"] as? String } == ["print_run.created", "print_run.mailed"])
            #expect((runEvents.last?["data"] as? [String: Any])?["mailed"] as? String == mailedAt)
            #expect((runEvents.first?["data"] as? [String: Any])?["mailed"] is NSNull)
            // Ids are unique; the list's filters.
            #expect(Set(all.compactMap { $0["id"] as? String }).count == all.count)
            let (readyOnly, _) = try await Self.events(live, key: key, query: "&type=card.ready")
            #expect(readyOnly.count == 2 && readyOnly.allSatisfy { $0["type"] as? String == "card.ready" })
            let listed = try await live.send(.GET, "/v1/cards?status=mailed", key: key)
            #expect(
                Set((listed.json["cards"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }) == Set(ids))
            // Another key sees none of them; a cursor that is not one is refused.
            #expect(try await Self.events(live, key: other).events.isEmpty)
            let refused = try await live.send(.GET, "/v1/events?after=x", key: key)
            #expect(refused.status == 400 && refused.header("Content-Type") == "application/problem+json")
        }
    }

    @Test(
        "a cancelled card says so once; a result recorded by a lease no longer held writes nothing",
        arguments: DatabaseKind.available)
    func cancelledOnce(database: DatabaseKind) async throws {
        try await LiveService.with(database) { live in
            let (owner, key) = try await live.service.book.createKey(name: "app")
            let photo = try await live.upload(ServiceAPITests.photo, key: key)
            let order = #"{"spec": \#(ServiceAPITests.spec(photo: photo, recipients: 1))}"#
            let placed = try await live.send(.POST, "/v1/cards", key: key, body: Data(order.utf8))
            let id = try #require((placed.json["cards"] as? [[String: Any]])?.first?["id"] as? String)
            _ = try await live.settled(id, key: key)
            for _ in 0..<2 { #expect(try await live.send(.DELETE, "/v1/cards/\(id)", key: key).status == 200) }
            // A renderer whose lease was lost (the card cancelled meanwhile) records nothing.
            let record = try #require(try await live.service.book.card(owner: owner, id: id))
            let stale = OrderBook.Claim(card: record, token: "node/gone")
            #expect(
                try await live.service.book.finish(stale, status: .failed, verdict: nil, error: "late", entryKey: nil)
                    == false)
            let types = try await Self.events(live, key: key).events.map { $0["type"] as? String }
            #expect(types == ["card.queued", "card.ready", "card.cancelled"], "\(types)")
            let card = try await live.send(.GET, "/v1/cards/\(id)", key: key).json
            #expect((card["times"] as? [String: String])?.keys.sorted() == ["cancelled", "queued", "ready"])
        }
    }
}
