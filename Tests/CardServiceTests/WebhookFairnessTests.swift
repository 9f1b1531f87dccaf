import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

@testable import CardService

/// Webhooks under a key holder who wants to hurt the others: one key's 128 slow endpoints do
/// not hold another key's webhook back; a receiver that takes 2 s on 64 endpoints never sees a
/// failed attempt; an endpoint deleted, or a key revoked, stops its attempt in flight and
/// receives nothing more; a receiver's answer is escaped before it is logged; a key has a
/// bounded number of endpoints, each URL stored normalised; an attempt connects to the address
/// that was checked.
@Suite(
    .libvips,
    .enabled(if: WebhookReceiver.python != nil, Comment(rawValue: WebhookReceiver.missing)))
struct WebhookFairnessTests {
    /// Loopback receivers allowed, quick polls, the real timeout (10 s).
    static func settings(endpoints: Int = 16) -> WebhookSettings {
        var settings = WebhookSettings()
        settings.allowLoopback = true
        settings.idlePoll = .milliseconds(20)
        settings.cancelPoll = .milliseconds(50)
        settings.maxEndpointsPerKey = endpoints
        return settings
    }

    /// A key, its small photo and the JSON of an order of one card of it.
    static func customer(_ live: LiveService, _ name: String) async throws -> (key: String, id: String, order: Data) {
        let created = try await live.service.book.createKey(name: name)
        let reply = try await live.send(
            .POST, "/v1/photos", key: created.secret, body: try HostileClientTests.smallPNG(), contentType: "image/png")
        let photo = try #require(reply.json["id"] as? String, "\(reply.text)")
        return (created.secret, created.id, Data(#"{"spec": {"version": 1, "photo": "\#(photo)"}}"#.utf8))
    }

    /// Makes an endpoint of `key` at `url`; its id and secret.
    static func endpoint(_ live: LiveService, key: String, url: String, types: String = "")
        async throws -> (id: String, secret: String)
    {
        let made = try await live.send(
            .POST, "/v1/webhook-endpoints", key: key, body: Data(#"{"url": "\#(url)"\#(types)}"#.utf8))
        guard made.status == 201, let id = made.json["id"] as? String, let secret = made.json["secret"] as? String
        else {
            throw Tools.ToolError(message: "endpoint \(url): \(made.status) \(made.text)")
        }
        return (id, secret)
    }

    @Test(
        "one key's 128 slow endpoints do not hold another key's webhook back past 2 s",
        arguments: DatabaseKind.available)
    func slowKeyDoesNotDelayOthers(database: DatabaseKind) async throws {
        try await LiveService.with(database, webhooks: Self.settings(endpoints: 128)) { live in
            let slow = try WebhookReceiver(directory: try Fixtures.scratchDirectory("slow-receiver"))
            try slow.answer("slow 60")
            let fast = try WebhookReceiver(directory: try Fixtures.scratchDirectory("fast-receiver"))
            let greedy = try await Self.customer(live, "greedy")
            var secrets: [String] = []
            for index in 0..<128 {
                secrets.append(try await Self.endpoint(live, key: greedy.key, url: slow.url + "/\(index)").secret)
            }
            try slow.trust(secrets)
            for _ in 0..<2 {
                #expect(try await live.send(.POST, "/v1/cards", key: greedy.key, body: greedy.order).status == 202)
            }
            // The greedy key's attempts are in flight, each to last past its 10 s bound.
            #expect(await Poll.until(seconds: 60) { slow.requests().count >= 16 })
            let other = try await Self.customer(live, "other")
            let hook = try await Self.endpoint(live, key: other.key, url: fast.url)
            try fast.trust([hook.secret])
            let ordered = Date().timeIntervalSince1970
            #expect(try await live.send(.POST, "/v1/cards", key: other.key, body: other.order).status == 202)
            #expect(
                await Poll.until(seconds: 60) { fast.requests().contains { $0["type"] as? String == "card.queued" } })
            let arrived = try #require(fast.requests().first { $0["type"] as? String == "card.queued" })
            let delay = (arrived["at"] as? Double ?? .infinity) - ordered
            #expect(delay < 2, "the other key's webhook took \(delay) s")
            #expect(arrived["answered"] as? Int == 204 && arrived["verified"] as? Bool == true)
            // The greedy key never held more than its share of senders.
            let leased = try await live.service.configuration.database.execute(
                """
                SELECT COUNT(*) AS n FROM deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint
                WHERE w.owner = $1 AND d.status = 'pending' AND d.lease_token IS NOT NULL
                """, [.text(greedy.id)])
            #expect((leased.first?.int("n") ?? 99) <= 16, "\(leased.first?.int("n") ?? -1) in flight")
        }
    }

    @Test(
        "a receiver that takes 2 s to answer, on 64 endpoints of 4 keys at once: every attempt succeeds the first time")
    func slowReceiverNeverFails() async throws {
        try await LiveService.with(.sqlite, webhooks: Self.settings()) { live in
            let receiver = try WebhookReceiver(directory: try Fixtures.scratchDirectory("two-second-receiver"))
            try receiver.answer("slow 2")
            // 16 endpoints (a key's most) of each of 4 keys: 64 attempts to one host at once, the
            // senders' pool (a pool of 8 connections kept 56 waiting past the 10 s bound).
            var customers: [(key: String, id: String, order: Data)] = []
            var secrets: [String] = []
            for index in 0..<4 {
                let customer = try await Self.customer(live, "app \(index)")
                customers.append(customer)
                for endpoint in 0..<16 {
                    secrets.append(
                        try await Self.endpoint(
                            live, key: customer.key, url: receiver.url + "/\(index)/\(endpoint)",
                            types: #", "types": ["card.queued"]"#
                        ).secret)
                }
            }
            try receiver.trust(secrets)
            for customer in customers {
                #expect(try await live.send(.POST, "/v1/cards", key: customer.key, body: customer.order).status == 202)
            }
            #expect(
                await Poll.until(seconds: 120) {
                    receiver.requests().filter { $0["answered"] as? Int == 204 }.count >= 64
                })
            let requests = receiver.requests()
            #expect(requests.filter { $0["answered"] as? Int == 0 }.count == 64, "each endpoint asked once")
            #expect(Set(requests.compactMap { $0["path"] as? String }).count == 64)
            #expect(requests.allSatisfy { [0, 204].contains($0["answered"] as? Int) }, "\(requests)")
            // They were in flight together: the last arrived before the first was answered.
            let arrivals = requests.filter { $0["answered"] as? Int == 0 }.compactMap { $0["at"] as? Double }
            let answers = requests.filter { $0["answered"] as? Int == 204 }.compactMap { $0["at"] as? Double }
            #expect((arrivals.max() ?? .infinity) < (answers.min() ?? 0), "not all 64 at once")
            // A receiver's 204 is counted once the sender has recorded it (delivered together).
            #expect(
                await Poll.until(seconds: 30) {
                    let metrics = (try? await live.send(.GET, "/metrics", key: nil).text) ?? ""
                    return metrics.contains(#"cardrender_webhook_deliveries_total{outcome="delivered"} 64"#)
                })
            let metrics = try await live.send(.GET, "/metrics", key: nil).text
            #expect(metrics.contains(#"cardrender_webhook_deliveries_total{outcome="delivered"} 64"#), "\(metrics)")
            #expect(!metrics.contains(#"outcome="retried""#), "\(metrics)")
        }
    }

    @Test(
        "an endpoint deleted, or its key revoked, stops the attempt in flight and receives nothing more",
        arguments: ["delete", "revoke"])
    func stoppedEndpoints(how: String) async throws {
        try await LiveService.with(.sqlite, webhooks: Self.settings()) { live in
            let receiver = try WebhookReceiver(directory: try Fixtures.scratchDirectory("stopped-\(how)"))
            try receiver.answer("slow 120")
            let customer = try await Self.customer(live, "app")
            let hook = try await Self.endpoint(live, key: customer.key, url: receiver.url)
            try receiver.trust([hook.secret])
            let placed = try await live.send(.POST, "/v1/cards", key: customer.key, body: customer.order)
            let card = try #require((placed.json["cards"] as? [[String: Any]])?.first?["id"] as? String)
            #expect(await Poll.until(seconds: 60) { receiver.requests().contains { $0["answered"] as? Int == 0 } })
            if how == "delete" {
                #expect(
                    try await live.send(.DELETE, "/v1/webhook-endpoints/\(hook.id)", key: customer.key).status == 204)
            } else {
                #expect(try await live.service.book.revokeKey(id: customer.id))
                let endpoint = try await live.service.book.endpoint(owner: customer.id, id: hook.id)
                #expect(endpoint?.disabled != nil, "a revoked key's endpoints are disabled")
            }
            // The sender hangs up on the receiver still holding the attempt.
            #expect(
                await Poll.until(seconds: 30) { receiver.requests().contains { $0["answered"] as? Int == -1 } },
                "\(receiver.requests())")
            // The card goes on to ready: its event is written, and nothing is to be sent for it.
            #expect(
                await Poll.until(seconds: 120) {
                    (try? await live.service.book.card(owner: customer.id, id: card))?.status == .ready
                })
            let events = try await live.service.book.events(owner: customer.id, after: nil, limit: 10, kind: .cardReady)
            #expect(events.events.count == 1)
            let waiting = try await live.service.configuration.database.execute(
                "SELECT COUNT(*) AS n FROM deliveries WHERE endpoint = $1", [.text(hook.id)])
            #expect(waiting.first?.int("n") == 0)
            #expect(receiver.requests().filter { $0["answered"] as? Int == 0 }.count == 1, "one attempt, no more")
        }
    }

    @Test("a receiver's answer cannot forge a log line; a key has at most its endpoints; URLs are kept normalised")
    func endpointsInWords() async throws {
        var settings = Self.settings(endpoints: 2)
        settings.retries = [.seconds(3600)]
        try await LiveService.with(.sqlite, webhooks: settings) { live in
            let receiver = try WebhookReceiver(directory: try Fixtures.scratchDirectory("forging-receiver"))
            try receiver.answer("500 forged")
            let customer = try await Self.customer(live, "app")
            let loud = "HTTP://127.0.0.1:\(receiver.port)/events"
            let made = try await live.send(
                .POST, "/v1/webhook-endpoints", key: customer.key, body: Data(#"{"url": "\#(loud)"}"#.utf8))
            #expect(made.json["url"] as? String == "http://127.0.0.1:\(receiver.port)/events", "\(made.text)")
            let hookID = try #require(made.json["id"] as? String)
            let injected = try await live.send(
                .POST, "/v1/webhook-endpoints", key: customer.key,
                body: Data(#"{"url": "https://93.184.215.14/a\r\nX-Injected: 1"}"#.utf8))
            #expect(injected.status == 422 && injected.text.contains("control character"), "\(injected.text)")
            #expect((injected.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "url")
            _ = try await Self.endpoint(live, key: customer.key, url: "https://93.184.215.14/second")
            let third = try await live.send(
                .POST, "/v1/webhook-endpoints", key: customer.key,
                body: Data(#"{"url": "https://93.184.215.14/3"}"#.utf8))
            #expect(third.status == 409 && third.text.contains("2 webhook endpoints, the most"), "\(third.text)")

            #expect(try await live.send(.POST, "/v1/cards", key: customer.key, body: customer.order).status == 202)
            var recorded = ""
            #expect(
                await Poll.until(seconds: 60) {
                    let rows = try? await live.service.configuration.database.execute(
                        "SELECT last_error FROM deliveries WHERE endpoint = $1 AND last_error IS NOT NULL",
                        [.text(hookID)])
                    recorded = rows?.first?.text("last_error") ?? ""
                    return !recorded.isEmpty
                })
            #expect(recorded.hasPrefix("answered 500: nope\\r\\nwebhook evt_forged"), "\(recorded)")
            #expect(!recorded.contains("\r") && !recorded.contains("\n") && !recorded.contains("\u{1b}"))
            #expect(recorded.contains("\\u{1b}[0m"), "\(recorded)")
        }
    }

    @Test("an attempt connects to the address checked: a host that never resolves, pinned to the receiver's")
    func pinnedAddress() async throws {
        let receiver = try WebhookReceiver(directory: try Fixtures.scratchDirectory("pinned-receiver"))
        let clients = PinnedClients(timeout: .seconds(10), connectionsPerHost: 4)
        let pinned = WebhookAddress.Pinned(
            host: "receiver.invalid", address: try #require(WebhookAddress.Address(literal: "127.0.0.1")))
        let status = try await clients.with(pinned) { client in
            var request = HTTPClientRequest(url: "http://receiver.invalid:\(receiver.port)/pinned")
            request.method = .POST
            request.body = .bytes(ByteBuffer(string: "{}"))
            let response = try await client.execute(request, timeout: .seconds(10))
            return response.status.code
        }
        await clients.shutdown()
        #expect(status == 400, "the receiver answered (unsigned: 400)")
        #expect(receiver.requests().first?["path"] as? String == "/pinned")
        // `.invalid` never resolves (RFC 6761): the check itself refuses it.
        #expect(
            WebhookAddress(allowLoopback: true).refusal("http://receiver.invalid:\(receiver.port)/")?
                .contains("does not resolve") == true)
    }
}
