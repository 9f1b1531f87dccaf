import Foundation
import NIOCore
import RenderCache
import TestSupport
import Testing

@testable import ObjectStore

/// `--cache s3://BUCKET/PREFIX` with the real binary and a real S3 server: what one node
/// made, another node with an empty disk gets from the bucket without rendering; the
/// credentials come from the environment only and never appear in output.
@Suite(.serialized, .libvips, .enabled(if: SeaweedServer.binary != nil, SeaweedServer.missing))
struct SharedCacheTests {
    struct Summary: Decodable {
        var total: Int
        var written: Int
        var cached: Int
    }
    struct Report: Decodable { var summary: Summary }

    /// Runs `cardrender thumb` as a node would, on a worker thread (it blocks until the
    /// process ends; Swift's cooperative pool stays free for the other tests).
    func thumb(_ server: SeaweedServer, node: String, input: String, output: String, secret: String? = nil)
        async throws -> (run: Tools.Run, summary: Summary?)
    {
        try await Tools.onWorkerThread {
            try Self.thumbNow(server, node: node, input: input, output: output, secret: secret)
        }
    }

    static func thumbNow(_ server: SeaweedServer, node: String, input: String, output: String, secret: String?) throws
        -> (run: Tools.Run, summary: Summary?)
    {
        var environment = nodeEnvironment(server, node: node)
        if let secret { environment["AWS_SECRET_ACCESS_KEY"] = secret }
        let report = output + ".json"
        let run = try Tools.run(
            Tools.cardrender,
            [
                "thumb", input, "--width", "60", "--out", output, "--cache", "s3://cache/fleet", "--report", report,
                "--quiet",
            ],
            environment: environment)
        let summary = try? JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: report)))
        return (run, summary?.summary)
    }

    /// The environment of a node whose disk cache is under `node`, with the store's endpoint
    /// and credentials.
    static func nodeEnvironment(_ server: SeaweedServer, node: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = node
        environment.merge(server.environment) { $1 }
        return environment
    }

    /// A new directory `name` with `count` distinct PNG photos `p<i>.png`, `width + i` wide.
    static func photos(_ name: String, count: Int, width: Int) throws -> String {
        let input = try Fixtures.scratchDirectory(name)
        for index in 0..<count {
            try Synthetic.image(input + "/p\(index).png", width: width + index, height: 150, bands: 3) { x, y in
                [UInt8((x + index * 40) % 256), UInt8(y % 256), 30]
            }
        }
        return input
    }

    @Test func whatOneNodeMadeAnotherGetsFromTheBucket() async throws {
        let server = try SeaweedServer()
        defer { server.stop() }
        let client = server.client()
        try await server.createBucket("cache", with: client)
        let input = try Self.photos("shared-in", count: 4, width: 200)
        let outA = try Fixtures.scratchDirectory("out-a")
        let nodeA = try Fixtures.scratchDirectory("node-a")
        let first = try await thumb(server, node: nodeA, input: input, output: outA)
        #expect(first.run.status == 0, "\(first.run.stderr)")
        #expect(first.summary?.written == 4 && first.summary?.cached == 0)
        let stored = try await client.list(bucket: "cache", prefix: "fleet/v1/")
        #expect(stored.count == 4, "one object per thumbnail under the prefix")

        let outB = try Fixtures.scratchDirectory("out-b")
        let second = try await thumb(server, node: try Fixtures.scratchDirectory("node-b"), input: input, output: outB)
        #expect(second.run.status == 0, "\(second.run.stderr)")
        #expect(second.summary?.cached == 4, "node B rendered nothing: \(String(describing: second.summary))")
        for index in 0..<4 {
            let a = try Data(contentsOf: URL(fileURLWithPath: outA + "/p\(index).png"))
            let b = try Data(contentsOf: URL(fileURLWithPath: outB + "/p\(index).png"))
            #expect(a == b)
        }

        // A wrong secret: the store refuses every call; the thumbnails are still made, the
        // error says why, the secret appears nowhere, and the exit status is 1 (a retry
        // cannot help).
        let wrong = try await thumb(
            server, node: try Fixtures.scratchDirectory("node-c"), input: input,
            output: try Fixtures.scratchDirectory("out-c"), secret: "wrong-secret-4242")
        #expect(wrong.summary?.written == 4)
        #expect(wrong.run.status == 1)
        #expect(wrong.run.stderr.contains("AWS_SECRET_ACCESS_KEY"), "\(wrong.run.stderr)")
        #expect(!wrong.run.stderr.contains("wrong-secret-4242") && !wrong.run.stdoutText.contains("wrong-secret-4242"))

        // A wrong secret on a node whose disk already holds every thumbnail: no miss ever
        // reaches the store, yet the node is told before its batch and exits 1.
        let warm = try await thumb(
            server, node: nodeA, input: input, output: try Fixtures.scratchDirectory("out-warm"),
            secret: "wrong-secret-4242")
        #expect(warm.summary?.cached == 4, "\(warm.run.stderr)")
        #expect(warm.run.status == 1, "\(warm.run.stderr)")
        #expect(warm.run.stderr.contains("refuses this node"), "\(warm.run.stderr)")

        // The store gone mid-run (stopped by pid): the thumbnails are still made and the
        // exit status is 75, so that a scheduler runs the shard again.
        server.stop()
        let down = try await thumb(
            server, node: try Fixtures.scratchDirectory("node-f"), input: input,
            output: try Fixtures.scratchDirectory("out-f"))
        #expect(down.run.status == 75, "\(down.run.stderr)")
        #expect(down.summary?.written == 4)
        #expect(down.run.stderr.contains("Exiting 75"))
    }

    /// A truncated or foreign object in the bucket is never served: it is a miss, removed
    /// from the bucket, and a good entry stored after it is read back whole.
    @Test func aCorruptObjectInTheBucketIsNeverServed() async throws {
        let server = try SeaweedServer()
        defer { server.stop() }
        let client = server.client()
        try await server.createBucket("cache", with: client)
        let store = S3Store(client: client, bucket: "cache", prefix: "/fleet/")
        let key = try CacheKey(inputDigest: "photo", recipe: ["width": 60], versions: "test")
        #expect(store.objectName(key) == "fleet/v1/\(key.hex.prefix(2))/\(key.hex)")
        #expect(try await client.putIfAbsent(bucket: "cache", key: store.objectName(key), body: [1, 2, 3]))
        // The cache's calls block (they are made from worker threads): run them on one, never
        // on Swift's cooperative pool, which the store's requests need.
        let (first, stored, second) = try await Tools.onWorkerThread {
            let local = try ContentStore(directory: try Fixtures.scratchDirectory("node-d"), shared: store)
            let first = local.entries.entry(for: key)
            let entry = CacheEntry(parts: [("image", Data([9, 8, 7]))], metadata: Data("{}".utf8))
            let stored = try local.entries.store(entry, for: key)
            let fresh = try ContentStore(directory: try Fixtures.scratchDirectory("node-e"), shared: store)
            return (first == nil, stored, fresh.entries.entry(for: key)?.part("image"))
        }
        #expect(first, "the corrupt object was a miss")
        #expect(stored == .stored)
        #expect(second == Data([9, 8, 7]))
        #expect(try await client.get(bucket: "cache", key: store.objectName(key)) != [1, 2, 3], "replaced")
    }

    /// With the bucket down, what a node renders is still kept on its disk (near first, far
    /// best effort): a rerun after the outage finds it without rendering.
    @Test func anOutageKeepsTheNodesOwnCopies() async throws {
        let server = try SeaweedServer()
        var client = server.client()
        try await server.createBucket("cache", with: client)
        server.stop()
        // A stopped server refuses at once; the client's connection pool would retry for
        // the whole timeout on each attempt.
        client.timeout = .seconds(2)
        client.attempts = 1
        let store = S3Store(client: client, bucket: "cache", prefix: "fleet")
        let key = try CacheKey(inputDigest: "outage", recipe: ["width": 60], versions: "test")
        let directory = try Fixtures.scratchDirectory("node-outage")
        let (stored, again) = try await Tools.onWorkerThread {
            let local = try ContentStore(directory: directory, shared: store)
            let entry = CacheEntry(parts: [("image", Data([4, 5, 6]))], metadata: Data("{}".utf8))
            let stored = (try? local.entries.store(entry, for: key)) != nil
            let rerun = try ContentStore(directory: directory, shared: store)
            return (stored, rerun.entries.entry(for: key)?.part("image"))
        }
        #expect(!stored, "the bucket's failure is reported")
        #expect(again == Data([4, 5, 6]), "the disk kept it")
    }

    /// A corrupt copy on one node's disk is removed from that disk only: the good shared
    /// object stays in the bucket for every other node, and this node reads it back.
    @Test func aCorruptLocalCopyLeavesTheSharedObject() async throws {
        let server = try SeaweedServer()
        defer { server.stop() }
        let client = server.client()
        try await server.createBucket("cache", with: client)
        let store = S3Store(client: client, bucket: "cache", prefix: "fleet")
        let key = try CacheKey(inputDigest: "rotted", recipe: ["width": 60], versions: "test")
        let directory = try Fixtures.scratchDirectory("node-rot")
        let (served, otherNode) = try await Tools.onWorkerThread {
            let local = try ContentStore(directory: directory, shared: store)
            let entry = CacheEntry(parts: [("image", Data([7, 7, 7]))], metadata: Data("{}".utf8))
            try local.entries.store(entry, for: key)
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: local.store.path(of: key)))
            let served = local.entries.entry(for: key)?.part("image")
            let other = try ContentStore(directory: try Fixtures.scratchDirectory("node-other"), shared: store)
            return (served, other.entries.entry(for: key)?.part("image"))
        }
        #expect(served == Data([7, 7, 7]), "read from the bucket after the local copy was found corrupt")
        #expect(otherNode == Data([7, 7, 7]), "the shared object is still there, whole")
    }

    /// `cache stats|verify|gc --cache s3://...` reach the bucket: stats counts its objects
    /// and bytes beside the disk layer's, verify reads every object, removes a corrupt one
    /// and exits 1 (then 0), gc trims only the disk and leaves the bucket to its lifecycle
    /// rule.
    @Test func cacheCommandsReachTheBucket() async throws {
        let server = try SeaweedServer()
        defer { server.stop() }
        let client = server.client()
        try await server.createBucket("cache", with: client)
        let input = try Self.photos("ops-in", count: 3, width: 120)
        let node = try Fixtures.scratchDirectory("node-ops")
        let made = try await thumb(server, node: node, input: input, output: try Fixtures.scratchDirectory("out-ops"))
        #expect(made.run.status == 0 && made.summary?.written == 3, "\(made.run.stderr)")
        let corrupt = try CacheKey(inputDigest: "damaged", recipe: ["width": 60], versions: "test")
        let name = S3Store(client: client, bucket: "cache", prefix: "fleet").objectName(corrupt)
        #expect(try await client.putIfAbsent(bucket: "cache", key: name, body: [1, 2, 3]))
        let stored = try await client.list(bucket: "cache", prefix: "fleet/v1/")
        #expect(stored.count == 4)

        let environment = Self.nodeEnvironment(server, node: node)
        let cache = { (arguments: [String]) async throws -> Tools.Run in
            try await Tools.onWorkerThread {
                try Tools.run(
                    Tools.cardrender, ["cache"] + arguments + ["--cache", "s3://cache/fleet"], environment: environment)
            }
        }
        let stats = try await cache(["stats"])
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.stdoutText.contains("entries: 3, bytes:"), "the disk layer: \(stats.stdoutText)")
        let bytes = stored.reduce(0) { $0 + $1.size }
        #expect(
            stats.stdoutText.contains("bucket: s3://cache/fleet: entries: 4, bytes: \(bytes) "), "\(stats.stdoutText)")

        let verify = try await cache(["verify"])
        #expect(verify.status == 1, "a corrupt object was removed: \(verify.stdoutText)")
        #expect(verify.stdoutText.contains("checked 3 entries, removed 0 corrupt"), "\(verify.stdoutText)")
        #expect(verify.stdoutText.contains("bucket: s3://cache/fleet: checked 4 entries, removed 1 corrupt"))
        #expect(verify.stderr.contains("s3://cache/fleet: removed corrupt entry \(corrupt)"), "\(verify.stderr)")
        #expect(try await client.get(bucket: "cache", key: name) == nil)
        let again = try await cache(["verify"])
        #expect(again.status == 0, "\(again.stdoutText)")
        #expect(again.stdoutText.contains("bucket: s3://cache/fleet: checked 3 entries, removed 0 corrupt"))

        let gc = try await cache(["gc", "--max-size", "1"])
        #expect(gc.status == 0, "\(gc.stderr)")
        #expect(gc.stdoutText.contains("0 entries, 0 bytes left"), "the disk layer was trimmed: \(gc.stdoutText)")
        #expect(gc.stdoutText.contains("s3://cache/fleet: left to the bucket's lifecycle rule"))
        #expect(try await client.list(bucket: "cache", prefix: "fleet/v1/").count == 3, "the bucket is untouched")
    }

    @Test func credentialsAreRequiredFromTheEnvironment() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["AWS_ACCESS_KEY_ID"] = nil
        environment["AWS_SECRET_ACCESS_KEY"] = nil
        let directory = try Fixtures.scratchDirectory("shared-nocreds")
        let run = try Tools.run(
            Tools.cardrender, ["thumb", directory, "--width", "10", "--out", directory, "--cache", "s3://b"],
            environment: environment)
        #expect(run.status == 64 && run.stderr.contains("AWS_ACCESS_KEY_ID"), "\(run.stderr)")
        let bad = try Tools.run(
            Tools.cardrender, ["thumb", directory, "--width", "10", "--out", directory, "--cache", "s3://"],
            environment: environment)
        #expect(bad.status == 64 && bad.stderr.contains("s3://BUCKET"), "\(bad.stderr)")
    }
}
