import Foundation
import TestSupport
import Testing

/// Webhooks sent by `cardrender serve` processes: a node killed with SIGKILL while it delivers
/// (every event delivered at least once, at most twice, once the node is back), and two nodes
/// on one PostgreSQL (each event once).
@Suite(
    .serialized, .libvips,
    .enabled(if: FileManager.default.fileExists(atPath: ServiceAPITests.photo), "../shared/corpus is absent"),
    .enabled(if: WebhookReceiver.python != nil, Comment(rawValue: WebhookReceiver.missing)))
struct WebhookNodeTests {
    /// A `serve --data` node with loopback webhooks, on `database` when given.
    static func node(_ scratch: String, name: String, database: String? = nil) async throws
        -> ServeOperationsTests.Serve
    {
        try await ServeOperationsTests.Serve.start(
            data: scratch + "/data-" + name, scratch: scratch,
            extra: ["--allow-loopback-webhooks", "--node-name", name] + (database.map { ["--database", $0] } ?? []),
            log: scratch + "/\(name)-\(UUID().uuidString.prefix(8)).log")
    }

    /// Orders `cards` cards for `key` through `base`; their ids.
    static func order(_ base: String, key: String, cards: Int) throws -> [String] {
        let upload = try ServeOperationsTests.curl([
            "-H", "Authorization: Bearer \(key)", "--data-binary", "@" + ServiceAPITests.photo, "-H",
            "Content-Type: application/octet-stream", base + "/v1/photos",
        ])
        let photo = try #require(
            ((try? JSONSerialization.jsonObject(with: Data(upload.body.utf8))) as? [String: Any])?["id"] as? String,
            "\(upload)")
        let placed = try ServeOperationsTests.curl([
            "-H", "Authorization: Bearer \(key)", "-H", "Content-Type: application/json", "--data-binary",
            #"{"spec": \#(ServiceAPITests.spec(photo: photo, recipients: cards))}"#, base + "/v1/cards",
        ])
        let json = (try? JSONSerialization.jsonObject(with: Data(placed.body.utf8))) as? [String: Any]
        return (json?["cards"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    /// Adds an endpoint at `url` for `key`; its secret.
    static func endpoint(_ base: String, key: String, url: String) throws -> String {
        let made = try ServeOperationsTests.curl([
            "-H", "Authorization: Bearer \(key)", "-H", "Content-Type: application/json", "--data-binary",
            #"{"url": "\#(url)"}"#, base + "/v1/webhook-endpoints",
        ])
        let json = (try? JSONSerialization.jsonObject(with: Data(made.body.utf8))) as? [String: Any]
        return try #require(json?["secret"] as? String, "\(made)")
    }

    /// Each event's accepted deliveries (answered 204) at the receiver.
    static func counts(_ receiver: WebhookReceiver) -> [String: Int] {
        var counts: [String: Int] = [:]
        for request in receiver.requests() where request["answered"] as? Int == 204 {
            if let id = request["id"] as? String { counts[id, default: 0] += 1 }
        }
        return counts
    }

    @Test("a node killed with SIGKILL while delivering: every event arrives at least once and at most twice")
    func killedWhileDelivering() async throws {
        let scratch = try Fixtures.scratchDirectory("webhook-kill")
        let receiver = try WebhookReceiver(directory: scratch)
        let key = try #require(
            try ServeOperationsTests.keys(["create", "app"], data: scratch + "/data-a").stdoutText
                .split(separator: "\n").last.map { String($0).trimmingCharacters(in: .whitespaces) })
        var node = try await Self.node(scratch, name: "a")
        try receiver.trust([try Self.endpoint(node.base, key: key, url: receiver.url)])
        // Answers that take far longer than the test: deliveries are in flight when the node
        // dies, however slowly this machine runs the test.
        try receiver.answer("slow 60")
        let ids = try Self.order(node.base, key: key, cards: 3)
        #expect(ids.count == 3)
        // Killed while the receiver holds a delivery: its lease is this node's, unrecorded.
        #expect(await Poll.until(seconds: 60) { receiver.requests().contains { $0["answered"] as? Int == 0 } })
        node.process.kill()
        try receiver.answer("ok")
        node = try await Self.node(scratch, name: "a")
        defer { node.process.kill() }
        // Every card ready, and every event of the key delivered.
        let delivered = await Poll.until(seconds: 300) {
            let events = try? ServeOperationsTests.curl([
                "-H", "Authorization: Bearer \(key)", node.base + "/v1/events?limit=100",
            ])
            let list =
                ((try? JSONSerialization.jsonObject(with: Data((events?.body ?? "").utf8))) as? [String: Any])?[
                    "events"] as? [[String: Any]] ?? []
            let ready = list.filter { $0["type"] as? String == "card.ready" }.count
            let counts = Self.counts(receiver)
            return ready == 3 && list.allSatisfy { counts[$0["id"] as? String ?? ""] ?? 0 >= 1 }
        }
        #expect(delivered, "\(receiver.requests()) \(node.logText.suffix(3000))")
        let counts = Self.counts(receiver)
        #expect(counts.values.allSatisfy { (1...2).contains($0) }, "\(counts)")
        // The node, back under its name, sent what it was sending at once.
        #expect(node.logText.contains("deliveries node a was sending, sent again"), "\(node.logText.suffix(2000))")
        #expect(receiver.requests().allSatisfy { $0["verified"] as? Bool == true })
    }

    @Test(
        "two nodes on one PostgreSQL send each event once",
        .enabled(if: PostgresServer.binaries != nil, "PostgreSQL is not installed"))
    func twoNodes() async throws {
        let scratch = try Fixtures.scratchDirectory("webhook-fleet")
        let database = try PostgresServer.shared().createDatabase()
        let receiver = try WebhookReceiver(directory: scratch)
        let created = try Tools.run(Tools.cardrender, ["keys", "create", "app", "--database", database])
        let key = try #require(
            created.stdoutText.split(separator: "\n").last.map { String($0).trimmingCharacters(in: .whitespaces) })
        let first = try await Self.node(scratch, name: "one", database: database)
        defer { first.process.kill() }
        let second = try await Self.node(scratch, name: "two", database: database)
        defer { second.process.kill() }
        try receiver.trust([try Self.endpoint(first.base, key: key, url: receiver.url)])
        var ids: [String] = []
        for base in [first.base, second.base, first.base] { ids += try Self.order(base, key: key, cards: 2) }
        #expect(ids.count == 6)
        // Queued and ready for each card: 12 events, each once.
        #expect(await Poll.until(seconds: 300) { Self.counts(receiver).count == 12 }, "\(receiver.requests())")
        let counts = Self.counts(receiver)
        #expect(counts.values.allSatisfy { $0 == 1 }, "\(counts)")
        #expect(receiver.requests().count == 12)
        #expect(receiver.requests().allSatisfy { $0["verified"] as? Bool == true })
    }
}
