import Foundation
import TestSupport
import Testing
import VipsKit

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

@Suite(.libvips) struct ServeProcessTests {
    @Test func sigtermFinishesTheRequestInFlightThenExitsZero() async throws {
        let tree = try ServedTree.make()
        try LoadTests.slowImage(tree.root + "/photos/noise.png", size: 4000)
        let server = try await ServeProcess.start(["--root", tree.root, "--workers", "1"])
        let (pid, port) = (server.process.processIdentifier, server.port)
        defer { if server.process.isRunning { kill(pid, SIGKILL) } }  // whatever fails below
        // Six renders of a 16 MP photo for one worker: one runs, five wait in the queue (each
        // decodes 16 MP of noise: a tenth of a second idle, far more under CI's load).
        let widths = [1200, 1201, 1202, 1203, 1204, 1205]
        // What must happen close together runs on a thread of its own over raw sockets: the six
        // requests are written at once, /metrics is read until the server itself says one render
        // runs and at least two wait, SIGTERM is sent that moment, and the six answers are read.
        // However long this test's tasks wait for a cooperative thread (CI's load once delayed
        // them past every render), the signal reaches the server while renders are in flight.
        let (signalled, answers) = try await Tools.onWorkerThread { () -> (Bool, [Data]) in
            let connections = try widths.map { _ in try RawConnection(port: port) }
            for (connection, width) in zip(connections, widths) {
                connection.send(
                    "GET /thumb/photos/noise.png?width=\(width) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                )
            }
            let seen = Poll.blockingUntil(seconds: 600) {
                guard let connection = try? RawConnection(port: port) else { return false }
                connection.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                let metrics = String(decoding: connection.readUntilClosed(within: 60).data, as: UTF8.self)
                return LiveServer.sample("cardrender_workers_busy", in: metrics) == 1
                    && (LiveServer.sample("cardrender_queue_depth", in: metrics) ?? 0) >= 2
            }
            kill(pid, SIGTERM)
            return (seen, connections.map { $0.readUntilClosed(within: 600).data })
        }
        #expect(signalled, "the server never had a render running and two waiting")
        for (width, answer) in zip(widths, answers) {
            let split = try #require(answer.firstRange(of: Data("\r\n\r\n".utf8)), "width \(width): no answer")
            let head = String(decoding: answer[..<split.lowerBound], as: UTF8.self)
            #expect(head.hasPrefix("HTTP/1.1 200"), "width \(width): \(head)")
            let image = try Fixtures.load(Data(answer[split.upperBound...]))
            #expect(image.width == width && image.height == width)
        }
        #expect(try await server.waitForExit() == 0)
        // Stopped: nothing listens any more.
        #expect(throws: (any Error).self) { _ = try RawConnection(port: port) }
        // One structured line per request, with status and duration.
        let log = server.log.split(separator: "\n").map(String.init)
        let lines = log.filter { $0.contains("path=/thumb/photos/noise.png?width=1202") }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("status=200") == true)
        #expect(lines.first?.contains("duration_ms=") == true)
        #expect(lines.first?.contains("cache=rendered") == true)
        // The server's own word that requests were in flight at the signal: it says what it was
        // finishing, and that many renders (at least) are logged after that line.
        let stopping = try #require(
            log.firstIndex { $0.contains("stopping on SIGTERM: finishing the renders admitted") }, "\(log)")
        let admitted = [#/running=(\d+)/#, #/queued=(\d+)/#].compactMap { pattern in
            (try? pattern.firstMatch(in: log[stopping])).flatMap { Int($0.1) }
        }
        #expect(admitted.count == 2 && admitted.reduce(0, +) >= 2, "\(log[stopping])")
        let finishedAfter = log[(stopping + 1)...].filter { $0.contains("path=/thumb/photos/noise.png") }.count
        #expect(finishedAfter >= admitted.reduce(0, +), "\(log)")
    }

    @Test func aRootThatIsNotADirectoryIsAUsageError() throws {
        let run = try Tools.run(ServeProcess.binary, ["serve", "--root", "/nonexistent/dir", "--port", "0"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("/nonexistent/dir: cannot be served: No such file or directory."))
    }
}
