import Foundation
import VipsKit

#if canImport(Glibc)
    import Glibc
#endif

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

    /// Runs `executable` with `arguments` (in `environment`, else libvips's environment for
    /// children) and waits for it; its output is read from files, not pipes (no reader threads,
    /// and a full pipe can never block the child).
    ///
    /// Started with `posix_spawn` and waited for with `waitpid` on its own pid, not with
    /// Foundation's `Process`: on Linux that waits for a SIGCHLD handler to reap the child, and
    /// with many children ending at once (the suites run in parallel) a child was once left a
    /// zombie and its `waitUntilExit` never returned, holding a cooperative thread for good.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws
        -> Run
    {
        let scratch = NSTemporaryDirectory() + "cardrender-run-" + UUID().uuidString
        defer {
            try? FileManager.default.removeItem(atPath: scratch + ".out")
            try? FileManager.default.removeItem(atPath: scratch + ".err")
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = (environment ?? Vips.environmentForChildren).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, scratch + ".out", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, scratch + ".err", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Nothing else of this process's: a long-lived child holding another child's end of
        // Foundation's exit socket (Process watches a socket pair, not SIGCHLD) kept that
        // child's `waitUntilExit` from ever returning.
        _ = SpawnedFiles.closeFrom?(&actions, 3)
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw ToolError(message: "\(executable) cannot be started: \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(child, &status, 0) == -1 {
            guard errno == EINTR else {
                throw ToolError(message: "\(executable): waitpid failed: \(String(cString: strerror(errno)))")
            }
        }
        // As Process reports it: the exit status, or the signal that ended it.
        let code = status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
        let outData = FileManager.default.contents(atPath: scratch + ".out") ?? Data()
        let errData = FileManager.default.contents(atPath: scratch + ".err") ?? Data()
        return Run(status: code, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
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
