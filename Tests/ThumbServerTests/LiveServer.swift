import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import RenderCache
import ServerShell
import ServiceLifecycle
import TestSupport
import ThumbServer

/// A real thumbnail server on 127.0.0.1 (a free port), for the length of a test.
struct LiveServer: Sendable {
    let port: Int
    let service: ThumbService

    /// A response as the client saw it.
    struct Reply: Sendable {
        let status: Int
        let headers: HTTPFields
        let body: Data

        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? { headers[HTTPField.Name(name)!] }
    }

    /// Sends one request on a new connection with Hummingbird's bare HTTP/1.1 client, which
    /// writes the target byte for byte (no URL normalisation): what traversal tests need.
    func request(
        _ target: String, method: HTTPRequest.Method = .get, headers: HTTPFields = [:]
    ) async throws -> Reply {
        // A bound on a hang only (Hummingbird's default, 15 s for the whole exchange, is less
        // than a loaded CI machine can keep this process's cooperative threads busy).
        let client = TestClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(600)))
        client.connect()
        do {
            let response = try await client.execute(
                TestClient.Request(target, method: method, authority: "127.0.0.1:\(port)", headers: headers))
            try await client.shutdown()
            return Reply(
                status: response.head.status.code, headers: response.head.headerFields,
                body: response.body.map { Data($0.readableBytesView) } ?? Data())
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// The value of one sample line of `/metrics`, e.g. `cardrender_renders_total`
    /// or `cardrender_http_requests_total{route="thumb",status="200"}` (0 when absent).
    func metric(_ sample: String) async throws -> Double {
        Self.sample(sample, in: try await request("/metrics").text) ?? 0
    }

    /// The value of the unlabelled sample `name` in a Prometheus exposition (NaN if it does not
    /// parse), or nil when the exposition does not have it.
    static func sample(_ name: String, in exposition: String) -> Double? {
        for line in exposition.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1)) ?? .nan
        }
        return nil
    }

    /// Runs `body` against a server of the thumbnail routes with `configuration`, on a socket
    /// with `shell`'s settings (its address replaced by 127.0.0.1 and a free port) and a fresh
    /// cache directory, then shuts the server down gracefully.
    static func with<T: Sendable>(
        _ configuration: ThumbConfiguration, shell: ShellConfiguration = ShellConfiguration(),
        _ body: @Sendable (LiveServer) async throws -> T
    ) async throws -> T {
        var shell = shell
        shell.host = "127.0.0.1"
        shell.port = 0
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let service = try ThumbService(
            configuration: configuration, cache: try ContentStore(directory: try Fixtures.scratchDirectory("cache")),
            logger: logger)
        let application = ServerApplication.build(
            configuration: shell, groups: [ThumbRoutes.group(service, logger: logger)], logger: logger
        ) { port in portSink.yield(port) }
        let group = ServiceGroup(services: [application], gracefulShutdownSignals: [], logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            do {
                let result = try await body(LiveServer(port: port, service: service))
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
        }
    }
}

/// A directory to serve, with an outside neighbour to escape to.
struct ServedTree {
    /// The root given to the server.
    let root: String
    /// A real PNG outside the root (`<root>/../outside/secret.png`).
    let outside: String

    /// `photos/quad.png` (64x48 quadrants), `photos/alias.png` (a link to it), `photos/escape.png`
    /// (a link out of the root), `photos/broken.jpg` (truncated), `notes.txt`, `drawing.svg`,
    /// `empty.png`, and `photos/corpus.jpg` when the corpus is present.
    static func make(_ label: String = #function) throws -> ServedTree {
        let base = try Fixtures.scratchDirectory(label)
        let root = base + "/root"
        let manager = FileManager.default
        try manager.createDirectory(atPath: root + "/photos", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: base + "/outside", withIntermediateDirectories: true)
        try Synthetic.quadrants(root + "/photos/quad.png")
        try Synthetic.quadrants(base + "/outside/secret.png")
        try manager.createSymbolicLink(atPath: root + "/photos/alias.png", withDestinationPath: "quad.png")
        try manager.createSymbolicLink(
            atPath: root + "/photos/escape.png", withDestinationPath: base + "/outside/secret.png")
        try Data("just words\n".utf8).write(to: URL(fileURLWithPath: root + "/notes.txt"))
        try Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#.utf8)
            .write(to: URL(fileURLWithPath: root + "/drawing.svg"))
        _ = manager.createFile(atPath: root + "/empty.png", contents: Data())
        try Tools.vips("black", base + "/whole.jpg", "300", "200", "--bands", "3")
        let whole = try Data(contentsOf: URL(fileURLWithPath: base + "/whole.jpg"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: root + "/photos/broken.jpg"))
        if Fixtures.corpusAvailable {
            try manager.copyItem(
                atPath: Fixtures.photo("photos/jolla-3264x2448.jpg"), toPath: root + "/photos/corpus.jpg")
        }
        return ServedTree(root: root, outside: base + "/outside/secret.png")
    }
}
