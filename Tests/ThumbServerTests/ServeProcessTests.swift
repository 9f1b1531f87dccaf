import AsyncHTTPClient
import Foundation
import NIOCore
import TestSupport
import Testing

/// The `cardrender serve` process as an operator runs it.
struct ServeProcess {
    /// The `cardrender` executable built beside this test bundle.
    static let binary: String = {
        if let override = ProcessInfo.processInfo.environment["CARDRENDER_BIN"] { return override }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("cardrender").path
    }()

    let process: Process
    let port: Int
    let logPath: String

    /// The log written so far (stderr).
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Starts `cardrender serve --port 0 …` and waits for the line that gives the port.
    static func start(_ arguments: [String]) async throws -> ServeProcess {
        let scratch = try Fixtures.scratchDirectory("serve")
        let logPath = scratch + "/stderr.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--port", "0", "--cache", scratch + "/cache"] + arguments
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        for _ in 0..<200 {
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            if let range = log.range(of: "on http://127.0.0.1:") {
                let digits = log[range.upperBound...].prefix { $0.isNumber }
                if let port = Int(digits) { return ServeProcess(process: process, port: port, logPath: logPath) }
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        throw Tools.ToolError(message: "cardrender serve did not start: \(log)")
    }

    /// Waits up to `seconds` for the process to exit and returns its status.
    func waitForExit(seconds: Int = 20) async throws -> Int32? {
        for _ in 0..<(seconds * 20) {
            if !process.isRunning { return process.terminationStatus }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }
}

@Suite struct ServeProcessTests {
    @Test func sigtermFinishesTheRequestInFlightThenExitsZero() async throws {
        let tree = try ServedTree.make()
        try LoadTests.slowImage(tree.root + "/photos/noise.png", size: 3000)
        let server = try await ServeProcess.start(["--root", tree.root, "--workers", "1"])
        let client = LoadTests.client(connections: 4)
        let base = "http://127.0.0.1:\(server.port)"
        let inFlight = Task {
            let response = try await client.execute(
                HTTPClientRequest(url: base + "/thumb/photos/noise.png?width=1200"), timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 1 << 26)
            return (Int(response.status.code), Data(buffer: body))
        }
        // Wait until the render is running (up to ~30 s: other suites load the machine), then
        // ask the server to stop.
        var busy = false
        for _ in 0..<1500 where !busy {
            let response = try await client.execute(HTTPClientRequest(url: base + "/metrics"), timeout: .seconds(5))
            let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
            busy = text.contains("cardrender_workers_busy 1")
            if !busy { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(busy, "the render started")
        kill(server.process.processIdentifier, SIGTERM)

        let (status, body) = try await inFlight.value
        #expect(status == 200)
        let image = try Fixtures.load(body)
        #expect(image.width == 1200 && image.height == 1200)
        #expect(try await server.waitForExit() == 0)
        // Stopped: nothing listens any more.
        await #expect(throws: (any Error).self) {
            _ = try await client.execute(HTTPClientRequest(url: base + "/healthz"), timeout: .seconds(5))
        }
        try await client.shutdown()
        // One structured line per request, with status and duration.
        let lines = server.log.split(separator: "\n").filter { $0.contains("path=/thumb/photos/noise.png?width=1200") }
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
