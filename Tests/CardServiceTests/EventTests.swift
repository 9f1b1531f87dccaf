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

/// What events keep and for how long: a card's public part only (never its message, address
/// or photo, not even in the rows written before that rule, which migration 7 cleans), numbered
/// per key (a cursor says nothing of other keys), and purged after the retention time with
/// their deliveries, the numbers going on.
@Suite(
    .libvips,
    .enabled(
        if: FileManager.default.fileExists(atPath: Fixtures.photo("photos/phone-4032x3024.jpg")),
        "../shared/corpus is absent"))
struct EventPrivacyTests {
    /// A recipient whose every field is a word to look for.
    static let recipient =
        #"{"name": "Zoltan Secretname", "address1": "7 Hiddenlane Road", "postcode": "SW1A 1AA", "city": "Quietville", "country": "UK"}"#
    static let secrets = ["Secretname", "Hiddenlane", "Quietville", "SW1A", "Nobody reads this"]

    @Test(
        "an event keeps the card's public part: no message, address or photo, in the API, the table or a webhook",
        arguments: DatabaseKind.available)
    func publicPartOnly(database: DatabaseKind) async throws {
        try await LiveService.with(database) { live in
            let (owner, key) = try await live.service.book.createKey(name: "app")
            let photo = try await live.upload(ServiceAPITests.photo, key: key)
            let spec =
                #"{"version": 1, "photo": "\#(photo)", "message": {"text": "Nobody reads this"}, "recipients": [\#(Self.recipient)]}"#
            let placed = try await live.send(.POST, "/v1/cards", key: key, body: Data(#"{"spec": \#(spec)}"#.utf8))
            let id = try #require((placed.json["cards"] as? [[String: Any]])?.first?["id"] as? String)
            #expect(try await live.settled(id, key: key)["status"] as? String == "ready")
            let rows = try await live.service.configuration.database.execute(
                "SELECT state FROM events WHERE owner = $1", [.text(owner)])
            #expect(rows.count == 2)
            for row in rows {
                let state = try #require(row.text("state"))
                for secret in Self.secrets + [photo, "spec", "entryKey"] {
                    #expect(!state.contains(secret), "\(secret) in \(state)")
                }
            }
            let listed = try await EventTests.events(live, key: key)
            let card = try await live.send(.GET, "/v1/cards/\(id)", key: key).json
            for event in listed.events {
                let data = try #require(event["data"] as? [String: Any])
                // What the card shows, as it was then: its mail class and warnings included.
                #expect(data["mailClass"] as? String == card["mailClass"] as? String)
                #expect(data["warnings"] as? [String] == card["warnings"] as? [String])
                #expect(Set(data.keys) == Set(card.keys), "\(data.keys.sorted()) \(card.keys.sorted())")
            }
            let records = try await live.service.book.events(owner: owner, after: nil, limit: 10, kind: nil).events
            let api = PostcardAPI(service: live.service)
            for record in records {
                let body = String(decoding: try #require(api.webhookBody(record)), as: UTF8.self)
                for secret in Self.secrets + [photo] { #expect(!body.contains(secret), "\(secret) in \(body)") }
            }
        }
    }

    @Test(
        "each key's events are numbered on their own: a cursor says nothing of the others'",
        arguments: DatabaseKind.available)
    func cursorsPerKey(database: DatabaseKind) async throws {
        let (book, opened) = try await QueueTests.migrated(database, "cursors")
        let busy = try await book.createKey(name: "busy").id
        let quiet = try await book.createKey(name: "quiet").id
        _ = try await QueueTests.queue(book, owner: busy, count: 5)
        let quietCards = try await QueueTests.queue(book, owner: quiet, count: 1)
        _ = try await QueueTests.queue(book, owner: busy, count: 3, prefix: "more")
        let mine = try await book.events(owner: quiet, after: nil, limit: 10, kind: nil).events
        #expect(mine.map(\.ownerSeq) == [1] && mine.first?.subject == quietCards[0])
        let theirs = try await book.events(owner: busy, after: 5, limit: 10, kind: nil).events
        #expect(theirs.map(\.ownerSeq) == [6, 7, 8], "the busy key's numbers run on past the quiet key's event")
        await opened.close()
    }

    @Test(
        "old events are purged with their deliveries, finished deliveries after their own time; the numbers go on",
        arguments: DatabaseKind.available)
    func retention(database: DatabaseKind) async throws {
        let (book, opened) = try await QueueTests.migrated(database, "retention")
        let owner = try await book.createKey(name: "app").id
        let endpoint = WebhookEndpointRecord(
            id: "whe_1", owner: owner, url: "https://93.184.215.14/", types: [], description: "", secret: "whsec_x",
            created: 0)
        #expect(try await book.addEndpoint(endpoint, limit: 16))
        _ = try await QueueTests.queue(book, owner: owner, count: 3)
        let database = opened
        // Two events made old, one delivery of a recent event finished long ago.
        let old = try await book.events(owner: owner, after: nil, limit: 10, kind: nil).events
        _ = try await database.execute(
            "UPDATE events SET created = 1000 WHERE id IN ($1, $2)", [.text(old[0].id), .text(old[1].id)])
        _ = try await database.execute(
            "UPDATE deliveries SET status = 'delivered', finished = 1000 WHERE event = $1", [.text(old[2].id)])
        let purged = try await book.purge(before: 2000, finishedBefore: 2000)
        #expect(purged.events == 2 && purged.deliveries == 3, "\(purged)")
        let left = try await book.events(owner: owner, after: nil, limit: 10, kind: nil).events
        #expect(left.map(\.id) == [old[2].id])
        let deliveries = try await database.execute("SELECT COUNT(*) AS n FROM deliveries", [])
        #expect(deliveries.first?.int("n") == 0)
        _ = try await QueueTests.queue(book, owner: owner, count: 1, prefix: "later")
        let after = try await book.events(owner: owner, after: 3, limit: 10, kind: nil).events
        #expect(after.map(\.ownerSeq) == [4], "a number is never given twice, purged or not")
        #expect(try await book.purge(before: 2000, finishedBefore: 2000) == (0, 0))
        await opened.close()
    }

    @Test(
        "migration 7 takes the spec, photo and owner out of the events written before it",
        arguments: DatabaseKind.available)
    func olderEventsCleaned(database: DatabaseKind) async throws {
        let opened = try await database.open(directory: try Fixtures.scratchDirectory("scrub"))
        #expect(try await Migrations.apply(to: opened, through: 6) == [1, 2, 3, 4, 5, 6])
        // An event as migrations 4-6 wrote them: the whole card.
        let card =
            #"{"created":1,"id":"card_1","owner":"key_1","photo":"d64e7c04","press":"rgb-jpeg","recipient":0,"spec":"{\"recipients\":[\#(Self.recipient.replacingOccurrences(of: "\"", with: "\\\""))]}","status":"queued","times":[],"entryKey":"abc"}"#
        for (id, owner) in [("evt_1", "key_1"), ("evt_2", "key_2"), ("evt_3", "key_1")] {
            _ = try await opened.execute(
                "INSERT INTO events (id, owner, type, subject, state, created) VALUES ($1, $2, 'card.queued', 'card_1', $3, 1)",
                [.text(id), .text(owner), .text(card)])
        }
        #expect(try await Migrations.apply(to: opened) == [7])
        let book = OrderBook(database: opened)
        let first = try await book.events(owner: "key_1", after: nil, limit: 10, kind: nil).events
        #expect(first.map(\.ownerSeq) == [1, 2] && first.map(\.id) == ["evt_1", "evt_3"])
        #expect(try await book.events(owner: "key_2", after: nil, limit: 10, kind: nil).events.map(\.ownerSeq) == [1])
        for event in first {
            for secret in Self.secrets + ["d64e7c04", "spec", "entryKey", "\"owner\""] {
                #expect(!event.state.contains(secret), "\(secret) in \(event.state)")
            }
            #expect(event.card?.id == "card_1" && event.card?.status == .queued, "\(event.state)")
        }
        // The next event of key_1 is its third.
        _ = try await QueueTests.queue(book, owner: "key_1", count: 1)
        #expect(try await book.events(owner: "key_1", after: 2, limit: 10, kind: nil).events.map(\.ownerSeq) == [3])
        await opened.close()
    }
}
