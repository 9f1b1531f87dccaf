import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Two `cardrender serve` nodes, each on its own test host (a network namespace), sharing
/// a real PostgreSQL and a real SeaweedFS bucket, behind a real nginx running the shipped
/// `deploy/nginx/cardrender-service.conf`: a preview asked of either node gives the same
/// bytes, and with one node killed (SIGKILL) while it renders, every card still becomes
/// `ready` exactly once. Stopped by pid.
@Suite(
    .serialized, .libvips,
    .enabled(if: TestNetwork.unavailable == nil, Comment(rawValue: TestNetwork.unavailable ?? "")),
    .enabled(if: SeaweedServer.binary != nil, SeaweedServer.missing),
    .enabled(if: PostgresServer.binaries != nil, PostgresServer.missing),
    .enabled(if: Nginx.binary != nil, "nginx is not installed: run `bash scripts/setup-tests.sh`"),
    .enabled(if: FileManager.default.fileExists(atPath: ServiceAPITests.photo), "../shared/corpus is absent"))
struct ServiceFleetTests {
    /// The shipped configuration with the nodes' addresses and the edge's port replaced.
    static func configuration(nodes: [String], edge: Int, directory: String) throws -> String {
        try Nginx.configuration(
            shipped: "cardrender-service.conf",
            replacing: [
                ("10.0.0.11:8080", nodes[0]), ("10.0.0.12:8080", nodes[1]), ("listen 80;", "listen 127.0.0.1:\(edge);"),
            ], directory: directory)
    }

    struct Reply {
        let status: Int
        let body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    static func send(
        _ url: String, method: HTTPMethod = .GET, key: String? = nil, body: Data? = nil,
        contentType: String = "application/json"
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let key { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        if let body {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(600))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        return Reply(status: Int(response.status.code), body: Data(bytes.readableBytesView))
    }

    /// Waits (bounded) until `url` answers 200.
    static func waitFor(_ url: String, seconds: Int, log: String) async throws {
        for _ in 0..<(seconds * 10) {
            if (try? await send(url))?.status == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        throw Tools.ToolError(message: "\(url) did not answer in \(seconds) s: \(text.suffix(2000))")
    }

    @Test func twoNodesOnOneQueueSurviveAKilledNode() async throws {
        let network = try TestNetwork(hosts: 2)
        defer { network.remove() }
        let hub = network.hosts[0].gateway
        let postgres = try PostgresServer(listen: "127.0.0.1,\(hub)", trusting: network.network)
        defer { postgres.stop() }
        let store = try SeaweedServer(address: hub)
        defer { store.stop() }
        try await store.createBucket("service")
        let database = try postgres.createDatabase(host: hub)
        let databaseName = String(database.split(separator: "/").last!)
        let created = try Tools.run(Tools.cardrender, ["keys", "create", "app", "--database", database])
        try #require(created.status == 0, "keys create: \(created.stderr)")
        let key = created.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(key.hasPrefix("crk_") && !key.contains("\n"))

        // The two nodes, each in its own namespace, reaching the database and the bucket at the hub.
        var nodes: [StoppableProcess] = []
        var logs: [String] = []
        defer { for node in nodes { node.kill() } }
        for (index, host) in network.hosts.enumerated() {
            let directory = try Fixtures.scratchDirectory("node-\(index)")
            let (executable, arguments) = host.command([
                Tools.cardrender, "serve", "--host", host.address, "--port", "8080", "--data", directory + "/data",
                "--database", database, "--store", "s3://service/orders", "--lease-seconds", "15", "--workers", "1",
                "--node-name", "node-\(index)", "--trusted-proxy", "10.77.0.0/16",
            ])
            var environment = store.environment
            environment["XDG_CACHE_HOME"] = directory + "/xdg"
            nodes.append(
                try StoppableProcess(executable, arguments, environment: environment, output: directory + "/serve.log"))
            logs.append(directory + "/serve.log")
        }
        let urls = network.hosts.map { "http://\($0.address):8080" }
        for (url, log) in zip(urls, logs) { try await Self.waitFor(url + "/healthz", seconds: 60, log: log) }

        let directory = try Fixtures.scratchDirectory("service-nginx")
        let edgePort = try SeaweedServer.freePorts(1)[0]
        try Data(
            Self.configuration(
                nodes: network.hosts.map { "\($0.address):8080" }, edge: edgePort, directory: directory
            ).utf8
        ).write(to: URL(fileURLWithPath: directory + "/nginx.conf"))
        let nginx = try StoppableProcess(
            Nginx.binary!, ["-p", directory, "-c", directory + "/nginx.conf"], output: directory + "/stderr.log")
        defer {
            nginx.send(SIGQUIT)
            if nginx.wait(upTo: 10) == nil { nginx.kill() }
        }
        let edge = "http://127.0.0.1:\(edgePort)"
        try await Self.waitFor(edge + "/healthz", seconds: 30, log: directory + "/error.log")

        // A photo uploaded through the edge; the same preview from either node.
        let upload = try await Self.send(
            edge + "/v1/photos", method: .POST, key: key,
            body: try Data(contentsOf: URL(fileURLWithPath: ServiceAPITests.photo)),
            contentType: "application/octet-stream")
        try #require(upload.status == 201, "upload: \(String(decoding: upload.body, as: UTF8.self))")
        let photo = try #require(upload.json["id"] as? String)
        let spec = Data(ServiceAPITests.spec(photo: photo, recipients: 1).utf8)
        let previews = [
            try await Self.send(urls[0] + "/v1/previews", method: .POST, key: key, body: spec),
            try await Self.send(urls[1] + "/v1/previews", method: .POST, key: key, body: spec),
        ]
        #expect(previews.allSatisfy { $0.status == 200 })
        #expect(previews[0].body == previews[1].body)
        #expect(previews[0].body.prefix(2) == Data([0xFF, 0xD8]))

        // Wrong keys through the edge: nginx answers 429 past its burst of 401s (and says so in
        // its log); a valid key from the same address is still served.
        var refusals: [Int] = []
        for attempt in 0..<30 {
            refusals.append(try await Self.send(edge + "/v1/cards", key: "crk_bad\(attempt)").status)
        }
        // nginx's burst (10 after the first) comes before the nodes' (20 each).
        #expect(
            refusals.prefix(11).allSatisfy { $0 == 401 } && refusals.dropFirst(11).allSatisfy { $0 == 429 },
            "\(refusals)")
        let limited = (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""
        #expect(limited.contains("limiting requests"), "\(limited.suffix(2000))")
        #expect(try await Self.send(edge + "/v1/cards", key: key).status == 200)

        // Twelve press cards; node 0 is killed while it renders one of them.
        let order = #"{"spec": \#(ServiceAPITests.spec(photo: photo, recipients: 12)), "press": "eu-a6-fogra39"}"#
        let placed = try await Self.send(edge + "/v1/cards", method: .POST, key: key, body: Data(order.utf8))
        try #require(placed.status == 202, "order: \(String(decoding: placed.body, as: UTF8.self))")
        let ids = (placed.json["cards"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(ids.count == 12)
        // Watched on a thread of its own, and killed from there the moment it is seen, so node 0
        // dies while it renders however long this test's tasks wait for a cooperative thread.
        let victim = nodes[0]
        let held = try await Tools.onWorkerThread { [postgres, databaseName] () -> String? in
            var found: String?
            _ = try Poll.blockingUntil(seconds: 300, every: .milliseconds(5)) {
                let rows = try postgres.psql(
                    "SELECT id FROM cards WHERE status = 'rendering' AND lease_token LIKE 'node-0/%' LIMIT 1",
                    database: databaseName)
                if !rows.isEmpty { found = rows.trimmingCharacters(in: .whitespacesAndNewlines) }
                return found != nil
            }
            if found != nil { victim.kill() }
            return found
        }
        let killed = try #require(held, "node 0 was never seen rendering a card")

        // Every card becomes ready (node 1 takes node 0's card over once its lease runs out).
        var statuses: [String: String] = [:]
        _ = try await Poll.until(seconds: 600, every: .milliseconds(100)) {
            for id in ids where statuses[id] != "ready" {
                statuses[id] = try await Self.send(edge + "/v1/cards/\(id)", key: key).json["status"] as? String
            }
            return ids.allSatisfy { statuses[$0] == "ready" }
        }
        #expect(ids.allSatisfy { statuses[$0] == "ready" }, "\(statuses)")
        #expect(statuses[killed] == "ready")
        // The survivor says what it did with that card: took it over from node 0, then readied it.
        let survivor = (try? String(contentsOfFile: logs[1], encoding: .utf8)) ?? ""
        #expect(
            survivor.contains("card \(killed): the lease of node node-0 ran out; taken over by node node-1"),
            "\(survivor.suffix(3000))")
        #expect(survivor.contains("card \(killed): ready"), "\(survivor.suffix(3000))")
        let metrics = try await Self.send(urls[1] + "/metrics", key: nil)
        #expect(
            String(decoding: metrics.body, as: UTF8.self).contains("cardrender_card_lease_takeovers_total 1"),
            "\(String(decoding: metrics.body, as: UTF8.self))")
        // Exactly once: one transition to ready per card, and one claim per card but the one
        // node 0 was rendering when it died (its lease renewed while it lived, so no slow
        // render was taken over).
        let rows = try postgres.psql("SELECT readied || ' ' || attempts FROM cards ORDER BY id", database: databaseName)
            .split(separator: "\n").map { $0.split(separator: " ").compactMap { Int($0) } }
        #expect(rows.count == 12)
        #expect(rows.allSatisfy { $0.first == 1 }, "readied, attempts: \(rows)")
        #expect(rows.map { $0.last ?? 0 }.reduce(0, +) <= 13, "readied, attempts: \(rows)")
        // The survivor serves every card's print file (stored in the bucket by either node).
        for id in ids {
            let print = try await Self.send(edge + "/v1/cards/\(id)/files/print", key: key)
            #expect(print.status == 200)
            #expect(print.body.prefix(5) == Data("%PDF-".utf8))
        }
    }
}
