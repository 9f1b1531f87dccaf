import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
import TestSupport
import Testing
import VipsKit

#if canImport(Glibc)
    import Glibc
#endif

/// Two `cardrender serve` processes on one S3 bucket (a real SeaweedFS) behind a real nginx
/// running the shipped `deploy/nginx/cardrender.conf`: one render per thumbnail for the
/// whole fleet, 304 through the edge, failover when an instance is killed, and thumbnails a
/// batch rendered served without a render. Everything on 127.0.0.1, stopped by pid.
@Suite(
    .serialized, .libvips, .enabled(if: SeaweedServer.binary != nil, SeaweedServer.missing),
    .enabled(if: Nginx.binary != nil, "nginx is not installed: run `bash scripts/setup-tests.sh`"))
struct NginxFleetTests {
    /// The shipped configuration with the instances' and the edge's ports and the cache
    /// path replaced.
    static func configuration(instances: [Int], edge: Int, directory: String) throws -> String {
        try Nginx.configuration(
            shipped: "cardrender.conf",
            replacing: [
                ("127.0.0.1:8081", "127.0.0.1:\(instances[0])"), ("127.0.0.1:8082", "127.0.0.1:\(instances[1])"),
                ("listen 80;", "listen 127.0.0.1:\(edge);"), ("/var/cache/nginx/cardrender", directory + "/edge-cache"),
            ], directory: directory)
    }

    struct Reply {
        let status: Int
        let etag: String?
        let xCache: String?
        let body: Data
    }

    static func get(_ client: HTTPClient, _ url: String, headers: [(String, String)] = []) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await client.execute(request, timeout: .seconds(600))
        let body = try await response.body.collect(upTo: 1 << 24)
        return Reply(
            status: Int(response.status.code), etag: response.headers.first(name: "ETag"),
            xCache: response.headers.first(name: "X-Cache"), body: Data(buffer: body))
    }

    /// `cardrender_renders_total` of the instance on `port`.
    static func renders(_ client: HTTPClient, port: Int) async throws -> Int {
        let text = String(decoding: try await get(client, "http://127.0.0.1:\(port)/metrics").body, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix("cardrender_renders_total ") {
            return Int(Double(line.dropFirst("cardrender_renders_total ".count)) ?? -1)
        }
        return 0
    }

    @Test func twoInstancesBehindNginxRenderEachThumbnailOnce() async throws {
        let store = try SeaweedServer()
        defer { store.stop() }
        try await store.createBucket("fleet")
        let root = try Fixtures.scratchDirectory("fleet-root")
        for (index, name) in ["a.png", "b.png"].enumerated() {
            try Synthetic.image(root + "/" + name, width: 640 + index, height: 480, bands: 3) { x, y in
                [UInt8((x / 3 + index * 50) % 256), UInt8((y / 2) % 256), UInt8((x + y) % 256)]
            }
        }
        let cache = "s3://fleet/thumbs"
        let first = try await ServeProcess.start(
            ["--root", root, "--workers", "1"], cache: cache, environment: store.environment)
        let second = try await ServeProcess.start(
            ["--root", root, "--workers", "1"], cache: cache, environment: store.environment)
        defer {
            for instance in [first, second] where instance.process.isRunning {
                kill(instance.process.processIdentifier, SIGKILL)
            }
        }
        let directory = try Fixtures.scratchDirectory("fleet-nginx")
        let edgePort = try SeaweedServer.freePorts(1)[0]
        try Data(
            Self.configuration(instances: [first.port, second.port], edge: edgePort, directory: directory).utf8
        ).write(to: URL(fileURLWithPath: directory + "/nginx.conf"))
        let nginx = try StoppableProcess(
            Nginx.binary!, ["-p", directory, "-c", directory + "/nginx.conf"], output: directory + "/stderr.log")
        defer {
            // SIGQUIT: the master stops its workers (a SIGKILL would leave them listening).
            nginx.send(SIGQUIT)
            if nginx.wait(upTo: 10) == nil { nginx.kill() }
        }

        let client = HTTPClient.shared
        let edge = "http://127.0.0.1:\(edgePort)"
        // nginx answers within moments of starting; wait for it, bounded.
        let ready = await Poll.until(seconds: 120, every: .milliseconds(100)) {
            (try? await Self.get(client, edge + "/healthz"))?.status == 200
        }
        let log = (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""
        try #require(ready, "nginx did not answer: \(log)")

        // 50 identical requests at once through the edge: one render in the whole fleet.
        let url = edge + "/thumb/a.png?width=200"
        let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
            for _ in 0..<50 { group.addTask { try await Self.get(client, url) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(replies.allSatisfy { $0.status == 200 })
        #expect(Set(replies.map(\.body)).count == 1, "every client got the same bytes")
        let image = try Fixtures.load(replies[0].body)
        #expect(image.width == 200 && image.height == 150)
        let counts = [
            try await Self.renders(client, port: first.port), try await Self.renders(client, port: second.port),
        ]
        #expect(counts.reduce(0, +) == 1, "renders per instance: \(counts)")

        // The edge passes the ETag and answers a client that has the bytes with 304.
        let etag = try #require(replies[0].etag)
        let revalidated = try await Self.get(client, url, headers: [("If-None-Match", etag)])
        #expect(revalidated.status == 304)
        #expect(revalidated.body.isEmpty)

        // The other instance, asked directly, has it from the bucket without rendering.
        let owner = counts[0] == 1 ? first : second
        let other = counts[0] == 1 ? second : first
        let direct = try await Self.get(client, "http://127.0.0.1:\(other.port)/thumb/a.png?width=200")
        #expect(direct.status == 200)
        #expect(direct.body == replies[0].body)
        #expect(direct.xCache == "disk")

        // Kill the instance that rendered: a URL nginx has not cached (the same thumbnail
        // asked another way) is answered by the survivor, from the bucket, no render.
        kill(owner.process.processIdentifier, SIGKILL)
        try await Tools.onWorkerThread { owner.process.waitUntilExit() }
        for variant in ["/thumb/a.png?width=200&format=png", "/thumb/a.png?format=png&width=200"] {
            let reply = try await Self.get(client, edge + variant)
            #expect(reply.status == 200, "\(variant)")
            #expect(reply.body == replies[0].body, "\(variant)")
        }
        #expect(try await Self.renders(client, port: other.port) == counts[counts[0] == 1 ? 1 : 0])

        // A thumbnail a batch rendered into the same bucket is served without a render.
        let batchOut = try Fixtures.scratchDirectory("fleet-batch")
        var environment = ProcessInfo.processInfo.environment.merging(store.environment) { $1 }
        environment["XDG_CACHE_HOME"] = try Fixtures.scratchDirectory("fleet-batch-node")
        let batch = try await Tools.onWorkerThread { [environment] in
            try Tools.run(
                Tools.cardrender, ["thumb", root, "--width", "120", "--out", batchOut, "--cache", cache, "--quiet"],
                environment: environment)
        }
        #expect(batch.status == 0, "\(batch.stderr)")
        let before = try await Self.renders(client, port: other.port)
        let served = try await Self.get(client, edge + "/thumb/b.png?width=120")
        #expect(served.status == 200)
        #expect(served.body == (try Data(contentsOf: URL(fileURLWithPath: batchOut + "/b.png"))))
        #expect(try await Self.renders(client, port: other.port) == before)
    }
}
