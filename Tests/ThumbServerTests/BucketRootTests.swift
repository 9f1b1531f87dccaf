import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
import ObjectStore
import RenderCache
import TestSupport
import Testing
import VipsKit

#if canImport(Glibc)
    import Glibc
#endif

/// `cardrender serve --root s3://BUCKET/PREFIX` on a real S3 server (SeaweedFS): a photo
/// uploaded with its SHA-256 is keyed from one HEAD, so a thumbnail a batch made from a
/// copy on disk is served without downloading the photo; a miss downloads it once; a photo
/// stored without a checksum is downloaded once to learn its digest; a replaced photo gets a new
/// thumbnail; nothing outside the prefix can be named.
@Suite(.serialized, .libvips, .enabled(if: SeaweedServer.binary != nil, SeaweedServer.missing))
struct BucketRootTests {
    struct Reply {
        let status: Int
        let xCache: String?
        let body: Data
    }

    static func get(_ url: String) async throws -> Reply {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(600))
        let body = try await response.body.collect(upTo: 1 << 24)
        return Reply(
            status: Int(response.status.code), xCache: response.headers.first(name: "X-Cache"), body: Data(buffer: body)
        )
    }

    /// `name` of the instance on `port`'s `/metrics` (0 when absent).
    static func metric(_ name: String, port: Int) async throws -> Int {
        let text = String(decoding: try await get("http://127.0.0.1:\(port)/metrics").body, as: UTF8.self)
        guard let value = LiveServer.sample(name, in: text) else { return 0 }
        return value.isNaN ? -1 : Int(value)
    }

    @Test func photosInABucketAreServedFromOneHeadWhenTheirThumbnailIsKnown() async throws {
        let store = try SeaweedServer()
        defer { store.stop() }
        let client = store.client()
        try await store.createBucket("photos", with: client)
        try await store.createBucket("fleet", with: client)
        let local = try Fixtures.scratchDirectory("bucket-local")
        try await Tools.onWorkerThread {
            for (index, name) in ["a.png", "b.png"].enumerated() {
                try Synthetic.image(local + "/" + name, width: 480 + index * 40, height: 320, bands: 3) { x, y in
                    [UInt8((x / 2 + index * 70) % 256), UInt8((y / 2) % 256), UInt8((x * y) % 256)]
                }
            }
        }
        let a = try [UInt8](Data(contentsOf: URL(fileURLWithPath: local + "/a.png")))
        let b = try [UInt8](Data(contentsOf: URL(fileURLWithPath: local + "/b.png")))
        #expect(try await client.putIfAbsent(bucket: "photos", key: "shop/a.png", body: a))
        #expect(try await client.putIfAbsent(bucket: "photos", key: "shop/b.png", body: b, checksum: false))
        #expect(try await client.putIfAbsent(bucket: "photos", key: "secret.png", body: a))

        // A batch on the copies on disk fills the shared cache.
        let batchOut = try Fixtures.scratchDirectory("bucket-batch")
        var environment = ProcessInfo.processInfo.environment.merging(store.environment) { $1 }
        environment["XDG_CACHE_HOME"] = try Fixtures.scratchDirectory("bucket-batch-node")
        let batch = try await Tools.onWorkerThread { [environment] in
            try Tools.run(
                Tools.cardrender,
                ["thumb", local, "--width", "120", "--out", batchOut, "--cache", "s3://fleet/c", "--quiet"],
                environment: environment)
        }
        #expect(batch.status == 0, "\(batch.stderr)")

        let server = try await ServeProcess.start(
            ["--root", "s3://photos/shop", "--workers", "1", "--memory-cache", "0"], cache: "s3://fleet/c",
            environment: store.environment)
        defer { if server.process.isRunning { kill(server.process.processIdentifier, SIGKILL) } }
        let base = "http://127.0.0.1:\(server.port)/thumb/"
        let counts = { () async throws -> (renders: Int, fetches: Int) in
            (
                try await Self.metric("cardrender_renders_total", port: server.port),
                try await Self.metric("cardrender_source_fetches_total", port: server.port)
            )
        }

        // Known from its checksum: one HEAD, no download, no render, the batch's bytes.
        let known = try await Self.get(base + "a.png?width=120")
        #expect(known.status == 200, "\(server.log)")
        #expect(known.xCache == "disk")
        #expect(known.body == (try Data(contentsOf: URL(fileURLWithPath: batchOut + "/a.png"))))
        #expect(try await counts() == (0, 0))

        // A miss downloads the photo once and renders.
        let miss = try await Self.get(base + "a.png?width=90")
        #expect(miss.status == 200)
        #expect(try Fixtures.load(miss.body).width == 90)
        #expect(try await counts() == (1, 1))

        // Stored without a checksum: downloaded to learn its digest, then found in the cache.
        let plain = try await Self.get(base + "b.png?width=120")
        #expect(plain.status == 200)
        #expect(plain.xCache == "disk")
        #expect(plain.body == (try Data(contentsOf: URL(fileURLWithPath: batchOut + "/b.png"))))
        #expect(try await counts() == (1, 2))
        // Asked again (no memory cache here): its digest is remembered, no second download.
        let again = try await Self.get(base + "b.png?width=120")
        #expect(again.status == 200 && again.xCache == "disk" && again.body == plain.body)
        #expect(try await counts() == (1, 2))

        // Nothing outside the prefix, nothing that is not there.
        for path in ["../secret.png", "%2E%2E/secret.png", "missing.png", "shop/a.png", "/a.png"] {
            #expect(try await Self.get(base + path + "?width=50").status == 404, "\(path)")
        }

        // A replaced photo (a new entity tag) gets a new thumbnail, not the remembered one.
        let wide = try Fixtures.scratchDirectory("bucket-wide") + "/a.png"
        try await Tools.onWorkerThread { try Synthetic.quadrants(wide, width: 400, height: 100) }
        try await client.delete(bucket: "photos", key: "shop/a.png")
        #expect(
            try await client.putIfAbsent(
                bucket: "photos", key: "shop/a.png", body: [UInt8](Data(contentsOf: URL(fileURLWithPath: wide)))))
        let replaced = try await Self.get(base + "a.png?width=120")
        #expect(replaced.status == 200)
        let image = try Fixtures.load(replaced.body)
        #expect(image.width == 120 && image.height == 30)
        #expect(try await counts() == (2, 3))

        // The store stops: 502 naming the store, never a thumbnail of something else.
        store.stop()
        let gone = try await Self.get(base + "a.png?width=70")
        #expect(gone.status == 502)
        #expect(String(decoding: gone.body, as: UTF8.self).contains("s3://photos/shop"))
    }
}
