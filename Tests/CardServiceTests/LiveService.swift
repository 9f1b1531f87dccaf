import AsyncHTTPClient
import CardKit
import CardService
import Foundation
import ImageCore
import Logging
import NIOCore
import NIOHTTP1
import PressKit
import RenderCache
import ServerShell
import ServiceLifecycle
import TestSupport
import Testing
import ThumbServer

/// The databases the service's suite runs against: SQLite always, PostgreSQL when its
/// server is installed (CI installs it).
enum DatabaseKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }

    /// The kinds that can run here: PostgreSQL when installed, or when
    /// `CARDRENDER_REQUIRE_POSTGRES=1` (`scripts/test.sh` sets it), so that a missing server
    /// fails the suite instead of leaving it to SQLite alone.
    static var available: [DatabaseKind] {
        PostgresServer.binaries != nil || ProcessInfo.processInfo.environment["CARDRENDER_REQUIRE_POSTGRES"] == "1"
            ? [.sqlite, .postgres] : [.sqlite]
    }

    /// A new, empty database of this kind.
    func open(directory: String) async throws -> any ServiceDatabase {
        switch self {
        case .sqlite: try await SQLiteServiceDatabase(path: directory + "/service.sqlite")
        case .postgres: try await PostgresServiceDatabase(url: try PostgresServer.shared().createDatabase())
        }
    }
}

/// The postcard service running for real in this process: a database, a store in a scratch
/// directory, the thumbnail server's HTTP stack with `/v1` on 127.0.0.1 and a free port,
/// and AsyncHTTPClient to talk to it.
struct LiveService: Sendable {
    let port: Int
    let service: PostcardService
    let directory: String

    /// A response as the client saw it.
    struct Reply: Sendable {
        let status: Int
        let headers: [(String, String)]
        let body: Data

        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
        /// The body as a JSON object.
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        }
    }

    /// Sends a request; `key` goes as `Authorization: Bearer`.
    func send(
        _ method: HTTPMethod, _ path: String, key: String?, body: Data? = nil,
        contentType: String = "application/json", headers: [(String, String)] = []
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        if let key { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(600))
        let bytes = try await response.body.collect(upTo: 256 << 20)
        return Reply(
            status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) },
            body: Data(bytes.readableBytesView))
    }

    /// Uploads a photo; returns its id.
    func upload(_ path: String, key: String) async throws -> String {
        let reply = try await send(
            .POST, "/v1/photos", key: key, body: try Data(contentsOf: URL(fileURLWithPath: path)),
            contentType: "application/octet-stream")
        guard reply.status == 201 || reply.status == 200, let id = reply.json["id"] as? String else {
            throw Tools.ToolError(message: "upload \(path): \(reply.status) \(reply.text)")
        }
        return id
    }

    /// Polls `GET /v1/cards/{id}` until the card leaves `queued` and `rendering` (bounded:
    /// `seconds`); the status decides the test, not the time.
    func settled(_ id: String, key: String, seconds: Double = 120) async throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let card = try await send(.GET, "/v1/cards/\(id)", key: key).json
            let status = card["status"] as? String
            if status != "queued" && status != "rendering" { return card }
            guard Date() < deadline else {
                throw Tools.ToolError(message: "card \(id) still \(status ?? "?") after \(seconds) s")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The PDF presses of the repository's profiles.
    static func presses() throws -> [String: PressProfile] {
        let conditions = try PressCondition.bundled(in: Fixtures.root.path + "/press/profiles")
        var presses: [String: PressProfile] = [:]
        for press in PressProfile.presets(fogra39: conditions.fogra39, gracol2006: conditions.gracol2006) {
            presses[press.name] = press
        }
        return presses
    }

    /// Runs `body` against a service on `database`, then shuts it down gracefully.
    static func with<T: Sendable>(
        _ database: DatabaseKind, requestsPerSecond: Double = 1000, lease: Duration = .seconds(60),
        maxPhotoBytes: Int = DecodePolicy.default.maxFileBytes, bodyTimeout: Duration = .seconds(30),
        failedAuthentications: (burst: Double, perSecond: Double) = (20, 0.5),
        webhooks: WebhookSettings = WebhookSettings(), limits base: APILimits = APILimits(),
        scanBudget: (burst: Double, perSecond: Double) = (30, 0.5),
        lingering: ShellConfiguration.Lingering = .init(),
        _ body: @Sendable (LiveService) async throws -> T
    ) async throws -> T {
        let directory = try Fixtures.scratchDirectory("service")
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let opened = try await database.open(directory: directory)
        try await OrderBook(database: opened).migrate()
        var configuration = PostcardService.Configuration(
            database: opened, store: try ContentStore(directory: directory + "/store", maxBytes: .max),
            settings: CardSettings(policy: DecodePolicy(maxFileBytes: maxPhotoBytes)),
            catalogue: try FrameCatalogue(directory: Fixtures.root.path + "/frames"), presses: try presses(),
            previewThreads: 2, renderThreads: 1, lease: lease)
        configuration.webhooks = webhooks
        configuration.scanBudget = scanBudget
        var limits = base
        limits.requestsPerSecond = requestsPerSecond
        limits.bodyTimeout = bodyTimeout
        limits.failedAuthentications = failedAuthentications
        let service = PostcardService(configuration: configuration, logger: logger)
        // Mounted as `cardrender serve --data` mounts them: the thumbnail routes (no root), `/v1`
        // and `/studio`.
        var thumbnails = ThumbConfiguration(root: nil)
        thumbnails.workers = 1
        let groups = [
            ThumbRoutes.group(
                try ThumbService(
                    configuration: thumbnails, cache: try ContentStore(directory: directory + "/cache"), logger: logger),
                logger: logger),
            try PostcardRoutes.group(service, limits: limits, logger: logger),
            StudioRoutes.group(maxPhotoBytes: maxPhotoBytes),
        ]
        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        var shell = ShellConfiguration(host: "127.0.0.1", port: 0)
        shell.lingering = lingering
        let application = ServerApplication.build(
            configuration: shell, groups: groups, logger: logger
        ) { port in portSink.yield(port) }
        let group = ServiceGroup(services: [application], gracefulShutdownSignals: [], logger: logger)
        let result: Result<T, any Error> = await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { return .failure(CancellationError()) }
            let result: Result<T, any Error>
            do {
                result = .success(try await body(LiveService(port: port, service: service, directory: directory)))
            } catch {
                result = .failure(error)
            }
            await group.triggerGracefulShutdown()
            try? await tasks.waitForAll()
            return result
        }
        await service.shutdown()
        await opened.close()
        return try result.get()
    }
}
