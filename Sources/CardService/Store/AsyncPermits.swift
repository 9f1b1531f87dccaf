import Synchronization

/// Runs async bodies at most `permits` at a time, the others waiting in arrival order (an
/// actor would interleave them at every `await`): one permit is a lock (SQLite's one
/// connection), more a bound on work in flight (uploads' bodies in memory). No library here
/// offers an async semaphore; this is a queue of continuations.
final class AsyncPermits: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state: Mutex<State>

    init(_ permits: Int = 1) {
        state = Mutex(State(free: max(1, permits)))
    }

    /// Runs `body` once a permit is free.
    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if resumeNow { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
