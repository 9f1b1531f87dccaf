import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import TestSupport
import Testing

/// The `cardrender serve` process as an operator runs it.
struct ServeProcess {
    /// The `cardrender` executable (see `Tools.cardrender`).
    static let binary = Tools.cardrender

    let process: Process
    let port: Int
    let logPath: String

    /// The log written so far (stderr).
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Starts `cardrender serve --port 0 …` and waits for the line that gives the port.
    /// - Parameters:
    ///   - cache: its `--cache` (default: a private directory; under an `s3://` cache the
    ///     disk layer is private too).
    ///   - environment: variables added to the test's own.
    static func start(_ arguments: [String], cache: String? = nil, environment: [String: String] = [:])
        async throws -> ServeProcess
    {
        let scratch = try Fixtures.scratchDirectory("serve")
        let logPath = scratch + "/stderr.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--port", "0", "--cache", cache ?? scratch + "/cache"] + arguments
        var variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        variables["XDG_CACHE_HOME"] = scratch + "/xdg"
        process.environment = variables
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Bounded by time, not by a count of polls: a loaded CI machine can take seconds to start it.
        var port: Int?
        _ = await Poll.until(seconds: 120, every: .milliseconds(50)) {
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            if let range = log.range(of: "on http://127.0.0.1:") {
                port = Int(log[range.upperBound...].prefix(while: \.isNumber))
            }
            return port != nil || !process.isRunning
        }
        if let port { return ServeProcess(process: process, port: port, logPath: logPath) }
        process.terminate()
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        throw Tools.ToolError(message: "cardrender serve did not start: \(log)")
    }

    /// Waits up to `seconds` for the process to exit and returns its status.
    func waitForExit(seconds: Int = 60) async throws -> Int32? {
        await Poll.until(seconds: Double(seconds), every: .milliseconds(50)) { !process.isRunning }
            ? process.terminationStatus : nil
    }
}

/// A count shared with request tasks.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

@Suite(.libvips) struct ServeProcessTests {
    @Test func sigtermFinishesTheRequestInFlightThenExitsZero() async throws {
        let tree = try ServedTree.make()
        try LoadTests.slowImage(tree.root + "/photos/noise.png", size: 4000)
        let server = try await ServeProcess.start(["--root", tree.root, "--workers", "1"])
        // Six renders of a 16 MP photo for one worker: one runs, five wait in the queue, for
        // seconds in all.
        let widths = [1200, 1201, 1202, 1203, 1204, 1205]
        // Six connections, so all six requests reach the server at once.
        let client = LoadTests.client(connections: widths.count)
        let base = "http://127.0.0.1:\(server.port)"
        let completed = Counter()
        let inFlight = widths.map { width in
            Task {
                let response = try await client.execute(
                    HTTPClientRequest(url: base + "/thumb/photos/noise.png?width=\(width)"), timeout: .seconds(600))
                let body = try await response.body.collect(upTo: 1 << 26)
                completed.increment()
                return (Int(response.status.code), Data(buffer: body))
            }
        }
        // A watcher on a thread of its own reads /metrics until the server itself says one render
        // runs and at least two more wait for the one worker, and sends SIGTERM that moment. Those
        // two need whole renders of a 16 MP photo (seconds each), so they are in flight when the
        // signal arrives, however long this test's own tasks wait for a cooperative thread.
        let (pid, port) = (server.process.processIdentifier, server.port)
        let (signalled, completedAtSignal) = try await Tools.onWorkerThread { () -> (Bool, Int) in
            let seen = Poll.blockingUntil(seconds: 600) {
                guard let connection = try? RawConnection(port: port) else { return false }
                connection.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                let metrics = String(decoding: connection.readUntilClosed(within: 60).data, as: UTF8.self)
                return LiveServer.sample("cardrender_workers_busy", in: metrics) == 1
                    && (LiveServer.sample("cardrender_queue_depth", in: metrics) ?? 0) >= 2
            }
            kill(pid, SIGTERM)
            return (seen, completed.value)
        }
        #expect(signalled, "the server never had a render running and two waiting")
        #expect(completedAtSignal < widths.count, "requests were still in flight at SIGTERM")

        for (width, task) in zip(widths, inFlight) {
            let (status, body) = try await task.value
            #expect(status == 200)
            let image = try Fixtures.load(body)
            #expect(image.width == width && image.height == width)
        }
        #expect(try await server.waitForExit() == 0)
        // Stopped: nothing listens any more.
        await #expect(throws: (any Error).self) {
            _ = try await client.execute(HTTPClientRequest(url: base + "/healthz"), timeout: .seconds(5))
        }
        try await client.shutdown()
        // One structured line per request, with status and duration.
        let lines = server.log.split(separator: "\n").filter { $0.contains("path=/thumb/photos/noise.png?width=1202") }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("status=200") == true)
        #expect(lines.first?.contains("duration_ms=") == true)
        #expect(lines.first?.contains("cache=rendered") == true)
    }

    @Test func aRootThatIsNotADirectoryIsAUsageError() throws {
        let run = try Tools.run(ServeProcess.binary, ["serve", "--root", "/nonexistent/dir", "--port", "0"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("/nonexistent/dir: cannot be served: No such file or directory."))
    }
}
