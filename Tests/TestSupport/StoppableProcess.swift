import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn`, so that a test can see it stop itself
/// (`SIGSTOP` at a failpoint) and kill it exactly there; Foundation's `Process` reaps its
/// children itself and cannot report a stop.
public final class StoppableProcess: Sendable {
    /// The child's process id.
    public let pid: pid_t
    /// Whether the child has been reaped: its pid may then belong to another process, so it is
    /// never signalled again.
    private let reaped = Mutex(false)

    /// Starts `executable` with `arguments`, the current environment plus `environment`,
    /// standard output and error to `output` (a file, created or truncated).
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], output: String = "/dev/null"
    ) throws {
        var merged = ProcessInfo.processInfo.environment
        for (name, value) in environment { merged[name] = value }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Nothing else of this process's: a long-lived child holding another child's end of
        // Foundation's exit socket (Process watches a socket pair, not SIGCHLD) kept that
        // child's `waitUntilExit` from ever returning.
        _ = SpawnedFiles.closeFrom?(&actions, 3)
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, nil, argv, envp)
        guard status == 0 else {
            throw Tools.ToolError(message: "posix_spawn \(executable): \(String(cString: strerror(status)))")
        }
        pid = child
    }

    /// How the child ended or paused.
    public enum State: Equatable, Sendable {
        case stopped(signal: Int32)
        case exited(status: Int32)
        case killed(signal: Int32)
    }

    /// Waits until the child stops or ends, for at most `seconds` (a bound, not a guess:
    /// nil only when it did neither in that time).
    public func wait(upTo seconds: Double) -> State? {
        var state: State?
        _ = Poll.blockingUntil(seconds: seconds, every: .milliseconds(5)) {
            var status: Int32 = 0
            let result = reaped.withLock { reaped -> Int32 in
                guard !reaped else { return -1 }
                let result = waitpid(pid, &status, WUNTRACED | WNOHANG)
                // Stopped is not ended: the child is still there to be continued or killed.
                if result == pid && status & 0xff != 0x7f { reaped = true }
                return result
            }
            guard result == pid else { return false }
            if status & 0xff == 0x7f {
                state = .stopped(signal: (status >> 8) & 0xff)
            } else if status & 0x7f == 0 {
                state = .exited(status: (status >> 8) & 0xff)
            } else {
                state = .killed(signal: status & 0x7f)
            }
            return true
        }
        return state
    }

    /// Sends `signal` to the child.
    public func send(_ signal: Int32) {
        reaped.withLock { reaped in
            if !reaped { _ = Glibc.kill(pid, signal) }
        }
    }

    /// Kills the child with `SIGKILL` and reaps it.
    public func kill() {
        reaped.withLock { reaped in
            guard !reaped else { return }
            _ = Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            reaped = true
        }
    }
}
