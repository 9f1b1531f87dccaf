import Foundation
import VipsKit

/// Runs real programs (the `vips` CLI, python3, the built `cardrender`) from tests.
public enum Tools {
    /// What a finished process left behind.
    public struct Run: Sendable {
        public let status: Int32
        public let stdout: Data
        public let stderr: String
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Runs blocking work (a process, a wait) on a thread of its own and waits for it without
    /// blocking Swift's cooperative pool, which the other suites' live servers need. Not a
    /// Dispatch global queue: on Linux its threads are the cooperative pool's, so work sent
    /// there waits behind the very tests that hold them.
    public static func onWorkerThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    /// The `cardrender` executable built beside the test bundle, or `$CARDRENDER_BIN`.
    public static let cardrender: String = {
        if let override = ProcessInfo.processInfo.environment["CARDRENDER_BIN"] { return override }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("cardrender").path
    }()

    /// Runs `executable` with `arguments` and waits for it, in `environment` (default: this
    /// process's, as `Vips.environmentForChildren` gives it).
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws
        -> Run
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment ?? Vips.environmentForChildren
        // Output goes to files, not pipes: no reader threads, and a full pipe can never block the child.
        let scratch = NSTemporaryDirectory() + "cardrender-run-" + UUID().uuidString
        _ = FileManager.default.createFile(atPath: scratch + ".out", contents: nil)
        _ = FileManager.default.createFile(atPath: scratch + ".err", contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: scratch + ".out")
            try? FileManager.default.removeItem(atPath: scratch + ".err")
        }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch + ".out"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch + ".err"))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let outData = FileManager.default.contents(atPath: scratch + ".out") ?? Data()
        let errData = FileManager.default.contents(atPath: scratch + ".err") ?? Data()
        return Run(status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs the `vips` command-line tool (Debian `libvips-tools`), failing on a non-zero exit.
    public static func vips(_ arguments: String...) throws {
        let result = try run("/usr/bin/vips", arguments)
        guard result.status == 0 else {
            throw ToolError(message: "vips \(arguments.joined(separator: " ")) failed: \(result.stderr)")
        }
    }

    /// Runs a python3 snippet, failing on a non-zero exit.
    public static func python(_ script: String, _ arguments: [String] = []) throws {
        let result = try run("/usr/bin/env", ["python3", "-c", script] + arguments)
        guard result.status == 0 else { throw ToolError(message: "python3 failed: \(result.stderr)") }
    }

    /// A helper program failed.
    public struct ToolError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }

        public init(message: String) {
            self.message = message
        }
    }
}
