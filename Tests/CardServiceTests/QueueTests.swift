import Foundation
import TestSupport
import Testing

@testable import CardService

/// The durable queue's rules, straight on each database: a lease taken over only once it
/// runs out, a result recorded only by the lease that holds the card, one `ready` per card.
@Suite(.libvips) struct QueueTests {
    @Test(
        "a card whose node died is taken over after its lease, and becomes ready once",
        arguments: DatabaseKind.available)
    func takeover(database: DatabaseKind) async throws {
        let (book, opened) = try await Self.migrated(database, "queue")
        #expect(try await book.migrate().isEmpty)  // versioned: nothing runs twice
        let owner = try await book.createKey(name: "q").id
        let ids = try await Self.queue(book, owner: owner, count: 3)
        // Node A claims with a lease that has already run out (it died at once).
        let dead = try #require(try await book.claim(leaseMilliseconds: -1, node: "node-a").claim)
        #expect(dead.takenOverFrom == nil)
        // Node B takes the same card over: the oldest, its lease over; the claim says from whom.
        let live = try #require(try await book.claim(leaseMilliseconds: 60_000, node: "node-b").claim)
        #expect(live.card.id == dead.card.id)
        #expect(live.takenOverFrom == "node-a")
        #expect(live.card.id == ids[0])
        // A's late result is refused; B's is recorded.
        #expect(try await Self.ready(book, dead) == false)
        #expect(try await Self.ready(book, live) == true)
        #expect(try await Self.ready(book, live) == false)
        // The next claims take the other two, in order, and then nothing.
        let second = try #require(try await book.claim(leaseMilliseconds: 60_000).claim)
        let third = try #require(try await book.claim(leaseMilliseconds: 60_000).claim)
        #expect([second.card.id, third.card.id] == Array(ids[1...]))
        #expect(try await book.claim(leaseMilliseconds: 60_000).claim == nil)
        _ = try await Self.ready(book, second)
        _ = try await Self.ready(book, third)
        #expect(try await book.readiedCounts(owner: owner) == Dictionary(uniqueKeysWithValues: ids.map { ($0, 1) }))
        await opened.close()
    }

    @Test("a card that stops every node rendering it fails after five leases", arguments: DatabaseKind.available)
    func poison(database: DatabaseKind) async throws {
        let (book, opened) = try await Self.migrated(database, "poison")
        let owner = try await book.createKey(name: "q").id
        _ = try await Self.queue(book, owner: owner, count: 1)
        for _ in 0..<5 { #expect(try await book.claim(leaseMilliseconds: -1).claim != nil) }
        let last = try await book.claim(leaseMilliseconds: -1)
        #expect(last.claim == nil)
        // The claim that failed it says so (the queue logs it).
        #expect(last.failed.count == 1 && last.failed.first?.error.contains("after 5 attempts") == true)
        let card = try #require(try await book.cards(owner: owner, status: nil, limit: 10, after: nil).cards.first)
        #expect(card.status == .failed)
        #expect(card.error?.contains("after 5 attempts") == true)
        await opened.close()
    }

    @Test("a renewed lease holds its card; a card put back waits out its back-off", arguments: DatabaseKind.available)
    func renewAndRelease(database: DatabaseKind) async throws {
        let (book, opened) = try await Self.migrated(database, "renew")
        let owner = try await book.createKey(name: "q").id
        let ids = try await Self.queue(book, owner: owner, count: 1)
        let first = try #require(try await book.claim(leaseMilliseconds: 60_000, node: "a").claim)
        #expect(first.token.hasPrefix("a/"))
        #expect(try await book.renew(first, leaseMilliseconds: 60_000))
        #expect(try await book.claim(leaseMilliseconds: 60_000).claim == nil)
        // Put back with its back-off over: claimed again at once; the old claim is void.
        try await book.release(first, backoffMilliseconds: -1)
        #expect(try await book.renew(first, leaseMilliseconds: 60_000) == false)
        let second = try #require(try await book.claim(leaseMilliseconds: 60_000).claim)
        #expect(second.card.id == ids[0])
        // Put back with a back-off still running: nobody takes it yet.
        try await book.release(second, backoffMilliseconds: 60_000)
        #expect(try await book.claim(leaseMilliseconds: 60_000).claim == nil)
        #expect(try await book.card(owner: owner, id: ids[0])?.status == .queued)
        await opened.close()
    }

    @Test(
        "a node started again takes its own unfinished cards up at once: by name on PostgreSQL, all of them on SQLite",
        arguments: DatabaseKind.available)
    func recoverOwnCards(database: DatabaseKind) async throws {
        let (book, opened) = try await Self.migrated(database, "recover")
        let owner = try await book.createKey(name: "q").id
        let ids = try await Self.queue(book, owner: owner, count: 2)
        let mine = try #require(try await book.claim(leaseMilliseconds: 600_000, node: "node-a").claim)
        let theirs = try #require(try await book.claim(leaseMilliseconds: 600_000, node: "node-b").claim)
        #expect(try await book.claim(leaseMilliseconds: 600_000).claim == nil)
        if database == .sqlite {
            // One file, one writer: one node, whatever its name was before it stopped.
            #expect(Set(try await book.recover(node: "renamed")) == Set(ids))
            let first = try #require(try await book.claim(leaseMilliseconds: 600_000, node: "renamed").claim)
            let second = try #require(try await book.claim(leaseMilliseconds: 600_000, node: "renamed").claim)
            #expect(Set([first.card.id, second.card.id]) == Set(ids))
            #expect(try await Self.ready(book, mine) == false)
            #expect(try await Self.ready(book, theirs) == false)
            #expect(try await Self.ready(book, first))
            #expect(try await Self.ready(book, second))
        } else {
            // node-a dies and starts again: its card is queued at once; node-b's keeps its lease.
            #expect(try await book.recover(node: "node-a").count == 1)
            #expect(try await book.recover(node: "node").isEmpty)  // a prefix of another name is not that node
            let again = try #require(try await book.claim(leaseMilliseconds: 600_000, node: "node-a").claim)
            #expect(again.card.id == mine.card.id)
            #expect(try await Self.ready(book, mine) == false)
            #expect(try await Self.ready(book, theirs))
            #expect(try await Self.ready(book, again))
        }
        #expect(try await book.readiedCounts(owner: owner) == Dictionary(uniqueKeysWithValues: ids.map { ($0, 1) }))
        await opened.close()
    }

    /// A new database of `kind`, migrated, and its book.
    static func migrated(_ kind: DatabaseKind, _ label: String) async throws -> (OrderBook, any ServiceDatabase) {
        let opened = try await kind.open(directory: try Fixtures.scratchDirectory(label))
        let book = OrderBook(database: opened)
        try await book.migrate()
        return (book, opened)
    }

    /// Queues `count` cards for `owner`, a millisecond apart (their order is the queue's).
    static func queue(_ book: OrderBook, owner: String, count: Int, prefix: String = "card") async throws -> [String] {
        let now = ServiceClock.milliseconds()
        let cards = (0..<count).map { index in
            CardRecord(
                id: "\(prefix)_\(owner)_\(index)", owner: owner, photo: String(repeating: "0", count: 64), spec: "{}",
                press: "rgb-jpeg", recipient: nil, status: .queued, created: now + index)
        }
        _ = try await book.place(owner: owner, idempotencyKey: nil, bodyDigest: "", cards: cards, answer: "")
        return cards.map(\.id)
    }

    /// Records a claim's card as ready; whether it was recorded.
    static func ready(_ book: OrderBook, _ claim: OrderBook.Claim) async throws -> Bool {
        try await book.finish(claim, status: .ready, verdict: "good", error: nil, entryKey: nil)
    }
}

/// The outbox's claims on their own, on both databases: a key's endpoints take turns within its
/// share, an endpoint never has more than its share in flight, and another key is served
/// beside a key at its cap.
struct WebhookClaimTests {
    /// Adds `count` endpoints for `owner`.
    static func endpoints(_ book: OrderBook, owner: String, count: Int) async throws -> [String] {
        var ids: [String] = []
        for index in 0..<count {
            let id = "whe_\(owner)_\(index)"
            let endpoint = WebhookEndpointRecord(
                id: id, owner: owner, url: "https://93.184.215.14/\(index)", types: [], description: "",
                secret: "whsec_x", created: index)
            #expect(try await book.addEndpoint(endpoint, limit: 16))
            ids.append(id)
        }
        return ids
    }

    @Test(
        "a key's endpoints take turns within its share; an endpoint's share and a key's hold over claims",
        arguments: DatabaseKind.available)
    func turnsAndShares(database: DatabaseKind) async throws {
        let (book, opened) = try await QueueTests.migrated(database, "claims")
        let busy = try await book.createKey(name: "busy").id
        let other = try await book.createKey(name: "other").id
        let mine = try await Self.endpoints(book, owner: busy, count: 3)
        let theirs = try await Self.endpoints(book, owner: other, count: 1)
        _ = try await QueueTests.queue(book, owner: busy, count: 10)
        _ = try await QueueTests.queue(book, owner: other, count: 10)
        let first = try await book.claimDeliveries(
            limit: 64, perOwner: 6, perEndpoint: 4, leaseMilliseconds: 60_000, node: "n", rotation: 0)
        let counts = Dictionary(grouping: first, by: \.endpoint.id).mapValues(\.count)
        #expect(mine.allSatisfy { counts[$0] == 2 }, "the busy key's 6, two per endpoint: \(counts)")
        #expect(counts[theirs[0]] == 4, "the other key's endpoint, up to its share of 4: \(counts)")
        // Each endpoint's deliveries in their events' order.
        for endpoint in mine + theirs {
            let seqs = first.filter { $0.endpoint.id == endpoint }.map(\.event.seq)
            #expect(seqs == seqs.sorted())
        }
        // At their caps: nothing more until something is recorded.
        #expect(
            try await book.claimDeliveries(limit: 64, perOwner: 6, perEndpoint: 4, leaseMilliseconds: 60_000, node: "n")
                .isEmpty)
        // One of the busy key's recorded: one more of its own, and still none of the other's
        // (its endpoint at its share).
        try await book.delivered(Array(first.filter { $0.endpoint.owner == busy }.prefix(1)))
        let next = try await book.claimDeliveries(
            limit: 64, perOwner: 6, perEndpoint: 4, leaseMilliseconds: 60_000, node: "n", rotation: 1)
        #expect(next.count == 1 && next.first?.endpoint.owner == busy, "\(next.map(\.endpoint.id))")
        await opened.close()
    }
}
