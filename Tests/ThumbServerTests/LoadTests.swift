import AsyncHTTPClient
import Foundation
import NIOCore
import TestSupport
import Testing
import ThumbServer

/// Concurrency: identical requests share one render; a full queue is refused at once.
@Suite(.libvips) struct LoadTests {
    /// An HTTP client allowed `connections` connections to one host, so requests really overlap.
    static func client(connections: Int) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(
            idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: connections)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// A photo large enough that rendering it takes a while (noise does not compress).
    static func slowImage(_ path: String, size: Int = 2500) throws {
        try Tools.vips("gaussnoise", path, String(size), String(size))
    }

    @Test func aHundredIdenticalRequestsMakeOneRender() async throws {
        let tree = try ServedTree.make()
        try Self.slowImage(tree.root + "/photos/noise.png", size: 1500)
        let client = Self.client(connections: 100)
        try await LiveServer.with(ServerConfiguration(root: tree.root, workers: 2, queueLimit: 4)) { server in
            let url = "http://127.0.0.1:\(server.port)/thumb/photos/noise.png?width=150"
            let replies = try await withThrowingTaskGroup(of: (Int, String?, Int).self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
                        let body = try await response.body.collect(upTo: 1 << 24)
                        return (Int(response.status.code), response.headers.first(name: "ETag"), body.readableBytes)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(replies.count == 100)
            #expect(replies.allSatisfy { $0.0 == 200 })
            #expect(Set(replies.map(\.1)).count == 1, "one ETag")
            #expect(Set(replies.map(\.2)).count == 1, "one body size")
            #expect(try await server.metric("cardrender_renders_total") == 1)
            let joined = try await server.metric("cardrender_render_joins_total")
            let memory = try await server.metric(#"cardrender_cache_hits_total{layer="memory"}"#)
            #expect(joined + memory == 99)
            #expect(joined > 0, "some requests waited for the render in flight")
        }
        try await client.shutdown()
    }

    /// With one worker and one queue slot: the worker takes a slow render, the queue a
    /// second, and a third request is refused at once with 503 and `Retry-After`. Each step
    /// waits (bounded) for the server's own gauges to show the state before the next
    /// request, so the outcome does not depend on how fast requests arrive; the render
    /// takes seconds, the steps milliseconds.
    @Test func aFullQueueIsRefusedWith503AndRetryAfter() async throws {
        let tree = try ServedTree.make()
        try Self.slowImage(tree.root + "/photos/noise.png", size: 4000)
        let client = Self.client(connections: 8)
        var configuration = ServerConfiguration(root: tree.root, workers: 1, queueLimit: 1)
        configuration.retryAfter = 2
        try await LiveServer.with(configuration) { server in
            @Sendable func get(_ width: Int) async throws -> (status: Int, retryAfter: String?, body: String) {
                let url = "http://127.0.0.1:\(server.port)/thumb/photos/noise.png?width=\(width)"
                let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(120))
                let body = try await response.body.collect(upTo: 1 << 24)
                return (Int(response.status.code), response.headers.first(name: "Retry-After"), String(buffer: body))
            }
            /// Waits until the gauge `name` reads `value` (bounded: 60 s).
            func until(_ name: String, is value: Double) async throws {
                let deadline = ContinuousClock.now + .seconds(60)
                while try await server.metric(name) != value {
                    guard ContinuousClock.now < deadline else {
                        Issue.record("\(name) never reached \(value)")
                        return
                    }
                    try await Task.sleep(for: .milliseconds(10))
                }
            }
            async let first = get(100)
            try await until("cardrender_workers_busy", is: 1)
            async let second = get(101)
            try await until("cardrender_queue_depth", is: 1)
            let third = try await get(102)
            #expect(third.status == 503)
            #expect(third.retryAfter == "2")
            #expect(third.body == "overloaded: every worker is busy; retry in 2 s.\n")
            #expect(try await first.status == 200)
            #expect(try await second.status == 200)
            #expect(
                try await server.metric(#"cardrender_http_requests_total{route="thumb",status="503"}"#) == 1)
            #expect(try await server.metric("cardrender_queue_depth") == 0)
        }
        try await client.shutdown()
    }
}
