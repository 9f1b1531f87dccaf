import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

@testable import ThumbServer

/// Concurrency: identical requests share one render; a full queue is refused at once.
@Suite(.libvips) struct LoadTests {
    /// Runs `body` with an HTTP client allowed `connections` connections to one host (so
    /// requests really overlap), and shuts the client down however `body` ends (a client
    /// left running traps in its deinit and takes the whole test process down).
    static func withClient<T>(connections: Int, _ body: (HTTPClient) async throws -> T) async throws -> T {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(
            idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// A photo large enough that rendering it takes a while (noise does not compress).
    static func slowImage(_ path: String, size: Int = 2500) throws {
        try Tools.vips("gaussnoise", path, String(size), String(size))
    }

    @Test func aHundredIdenticalRequestsMakeOneRender() async throws {
        let tree = try ServedTree.make()
        try Self.slowImage(tree.root + "/photos/noise.png", size: 1500)
        try await Self.withClient(connections: 100) { client in
            try await LiveServer.with(ThumbConfiguration(root: tree.root, workers: 1, queueLimit: 4)) { server in
                // The only worker is held until all 99 followers wait for the first request's render,
                // so how fast anything runs decides nothing.
                let pool = server.service.pool
                let gate = DispatchSemaphore(value: 0)
                async let held: Void = pool.run { gate.wait() }
                defer { gate.signal() }  // whatever fails below, the worker is let go
                #expect(await Poll.until(seconds: 600) { pool.load.busy == 1 })
                let url = "http://127.0.0.1:\(server.port)/thumb/photos/noise.png?width=150"
                let requests = Task {
                    try await withThrowingTaskGroup(of: (Int, String?, Int).self) { group in
                        for _ in 0..<100 {
                            group.addTask {
                                let response = try await client.execute(
                                    HTTPClientRequest(url: url), timeout: .seconds(600))
                                let body = try await response.body.collect(upTo: 1 << 24)
                                return (
                                    Int(response.status.code), response.headers.first(name: "ETag"), body.readableBytes
                                )
                            }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                }
                #expect(await Poll.until(seconds: 600) { server.service.flights.joinersWaiting == 99 })
                gate.signal()
                _ = try await held
                let replies = try await requests.value
                #expect(replies.count == 100)
                #expect(replies.allSatisfy { $0.0 == 200 })
                #expect(Set(replies.map(\.1)).count == 1, "one ETag")
                #expect(Set(replies.map(\.2)).count == 1, "one body size")
                #expect(try await server.metric("cardrender_renders_total") == 1)
                #expect(try await server.metric("cardrender_render_joins_total") == 99)
                #expect(try await server.metric(#"cardrender_cache_hits_total{layer="memory"}"#) == 0)
            }
        }
    }

    /// With one worker and one queue slot both taken (by jobs of the server's own pool that
    /// wait for the test's signal, so nothing depends on how fast anything runs), a request
    /// is refused at once with 503 and `Retry-After`; once they are done, it is served.
    @Test func aFullQueueIsRefusedWith503AndRetryAfter() async throws {
        let tree = try ServedTree.make()
        var configuration = ThumbConfiguration(root: tree.root, workers: 1, queueLimit: 1)
        configuration.retryAfter = 2
        try await Self.withClient(connections: 8) { client in
            try await LiveServer.with(configuration) { server in
                let pool = server.service.pool
                let gate = DispatchSemaphore(value: 0)
                async let running: Void = pool.run { gate.wait() }
                async let waiting: Void = pool.run { gate.wait() }
                defer {  // whatever fails below, both jobs are let go
                    gate.signal()
                    gate.signal()
                }
                // Both admitted: one on the worker, one queued (bounded wait for the thread).
                #expect(await Poll.until(seconds: 600) { (pool.load.queued, pool.load.busy) == (1, 1) })
                let url = "http://127.0.0.1:\(server.port)/thumb/photos/quad.png?width=20"
                let refused = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(600))
                let body = try await refused.body.collect(upTo: 1 << 20)
                #expect(refused.status.code == 503)
                #expect(refused.headers.first(name: "Retry-After") == "2")
                #expect(String(buffer: body) == "overloaded: every worker is busy; retry in 2 s.\n")
                #expect(try await server.metric(#"cardrender_http_requests_total{route="thumb",status="503"}"#) == 1)
                #expect(try await server.metric("cardrender_queue_depth") == 1)
                gate.signal()
                gate.signal()
                _ = try await (running, waiting)
                let served = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(600))
                _ = try await served.body.collect(upTo: 1 << 20)
                #expect(served.status.code == 200)
                #expect(try await server.metric("cardrender_queue_depth") == 0)
            }
        }
    }
}

/// Callers cancelled while their job waits in the queue give their admission slot back
/// (swift-nio throws `CancellationError` for them once a worker reaches their job): after
/// more such cancellations than there are slots, the pool still admits a full load.
@Suite(.libvips) struct WorkPoolCancellationTests {
    /// Waits, bounded, until the pool's own gauges say `queued` and `busy`. The bound only
    /// guards against a hang: the callers are tasks on Swift's cooperative pool, which the
    /// other suites' blocking tests can hold for minutes on a 2-core machine (seen in CI:
    /// trivial tests finishing after 115 s), so it is generous.
    static func waitFor(_ pool: WorkPool, queued: Int, busy: Int) async throws {
        #expect(await Poll.until(seconds: 600) { (pool.load.queued, pool.load.busy) == (queued, busy) })
    }

    @Test func cancelledCallersGiveTheirSlotsBack() async throws {
        let pool = WorkPool(workers: 1, queueLimit: 2)
        for _ in 0..<2 {
            let gate = DispatchSemaphore(value: 0)
            let holder = Task { try await pool.run { gate.wait() } }
            try await Self.waitFor(pool, queued: 0, busy: 1)
            let queued = (0..<2).map { _ in Task { try await pool.run { 1 } } }
            try await Self.waitFor(pool, queued: 2, busy: 1)
            for task in queued { task.cancel() }
            gate.signal()
            try await holder.value
            for task in queued {
                if case .success = await task.result { Issue.record("a cancelled job ran") }
            }
            try await Self.waitFor(pool, queued: 0, busy: 0)
        }
        // A full load (one running, two queued) is still admitted and runs.
        let gate = DispatchSemaphore(value: 0)
        let jobs = (0..<3).map { _ in Task { try await pool.run { gate.wait() } } }
        try await Self.waitFor(pool, queued: 2, busy: 1)
        for _ in jobs { gate.signal() }
        for job in jobs { try await job.value }
    }
}
