import Synchronization

/// Work done at most `permits` at a time, shared fairly between owners (API keys):
/// - no owner holds more than `perOwner` (by default all but one, so that one is always left
///   for an owner that holds none);
/// - a permit given back goes to the waiting owner holding the fewest, owners taking turns
///   (round robin), each owner's requests in arrival order;
/// - a request waits at most `maxWait`, then is refused (`Busy`, answered 503 with
///   `Retry-After`); a cancelled task stops waiting at once.
///
/// Why: uploads and scans hold their bodies in memory while they are read and checked; a few
/// at a time bounds that memory. With a plain queue, one key's two slow uploads held both
/// permits of a 2-core node, and every other key's uploads and scans waited without bound.
/// No library here offers an async semaphore, let alone a fair one: this is a queue of
/// continuations per owner.
final class FairPermits: Sendable {
    /// No permit came free within `maxWait`.
    struct Busy: Error {
        /// Whole seconds after which a retry may find a permit.
        let retryAfter: Int
    }

    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var free: Int
        var held: [String: Int] = [:]
        var waiting: [String: [Waiter]] = [:]
        /// Owners with waiters, in the order they take turns.
        var turns: [String] = []
        var nextID = 0
        /// Waiters stopped before they were queued (their time ran out, or their task was
        /// cancelled, first): true when it was the time.
        var stopped: [Int: Bool] = [:]
        /// The waiters between their first look and their permit (or their refusal): a stop
        /// for any other is late and forgotten.
        var active: Set<Int> = []
    }

    let permits: Int
    let maxWait: Duration
    private let state: Mutex<State>

    /// The most one owner may hold (all but one, by default, while there are two or more).
    let perOwner: Int

    /// - Parameters:
    ///   - permits: work at once (at least 1).
    ///   - perOwner: the most one owner may hold (default: all but one, at least 1).
    ///   - maxWait: how long a request may wait for a permit.
    init(_ permits: Int, perOwner: Int? = nil, maxWait: Duration) {
        self.permits = max(1, permits)
        self.perOwner = max(1, min(perOwner ?? (permits - 1), self.permits))
        self.maxWait = maxWait
        state = Mutex(State(free: max(1, permits)))
    }

    /// Runs `body` once `owner` has a permit.
    /// - Throws: `Busy` when none came within `maxWait`; `CancellationError` when the task was
    ///   cancelled while waiting; what `body` throws.
    func run<T: Sendable>(owner: String, _ body: () async throws -> T) async throws -> T {
        try await acquire(owner)
        defer { release(owner) }
        return try await body()
    }

    /// Permits held now by `owner` (for the tests).
    func held(by owner: String) -> Int { state.withLock { $0.held[owner] ?? 0 } }

    /// Requests of `owner` waiting now (for the tests).
    func waiting(for owner: String) -> Int { state.withLock { $0.waiting[owner]?.count ?? 0 } }

    private func acquire(_ owner: String) async throws {
        let id = state.withLock { state -> Int? in
            if state.free > 0, state.held[owner, default: 0] < perOwner {
                state.free -= 1
                state.held[owner, default: 0] += 1
                return nil
            }
            state.nextID += 1
            state.active.insert(state.nextID)
            return state.nextID
        }
        guard let id else { return }
        let busy = Busy(retryAfter: max(1, Int(maxWait.components.seconds)))
        let limit = maxWait
        let timer = Task { [weak self] in
            try await Task.sleep(for: limit)
            self?.abandon(owner, id: id, timedOut: true)
        }
        defer {
            timer.cancel()
            // A stop that came after the permit did is forgotten, now or later.
            state.withLock { state in
                state.stopped[id] = nil
                state.active.remove(id)
            }
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Bool, any Error> in
                    if let timedOut = state.stopped.removeValue(forKey: id) {
                        return .failure(timedOut ? busy : CancellationError())
                    }
                    // A permit may have come free since the first look.
                    if state.free > 0, state.held[owner, default: 0] < perOwner {
                        state.free -= 1
                        state.held[owner, default: 0] += 1
                        return .success(true)
                    }
                    if state.waiting[owner, default: []].isEmpty { state.turns.append(owner) }
                    state.waiting[owner, default: []].append(Waiter(id: id, continuation: continuation))
                    return .success(false)
                }
                switch outcome {
                case .success(true): continuation.resume()
                case .success(false): break
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            abandon(owner, id: id, timedOut: false)
        }
    }

    /// Stops waiter `id` of `owner` (`Busy` when its time ran out, else cancelled), if it
    /// still waits, or before it waits.
    private func abandon(_ owner: String, id: Int, timedOut: Bool) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiting[owner]?.firstIndex(where: { $0.id == id }) else {
                if state.active.contains(id) { state.stopped[id] = timedOut }
                return nil
            }
            let waiter = state.waiting[owner, default: []].remove(at: index)
            if state.waiting[owner]?.isEmpty == true {
                state.waiting[owner] = nil
                state.turns.removeAll { $0 == owner }
            }
            return waiter
        }
        waiter?.continuation.resume(
            throwing: timedOut ? Busy(retryAfter: max(1, Int(maxWait.components.seconds))) : CancellationError())
    }

    private func release(_ owner: String) {
        let next = state.withLock { state -> Waiter? in
            state.held[owner, default: 1] -= 1
            if state.held[owner] == 0 { state.held[owner] = nil }
            state.free += 1
            // The owner whose turn it is among those holding the fewest and under the cap.
            let eligible = state.turns.filter { state.held[$0, default: 0] < perOwner }
            guard let fewest = eligible.map({ state.held[$0, default: 0] }).min(),
                let chosen = eligible.first(where: { state.held[$0, default: 0] == fewest }),
                var queue = state.waiting[chosen], !queue.isEmpty
            else { return nil }
            let waiter = queue.removeFirst()
            state.turns.removeAll { $0 == chosen }
            if queue.isEmpty {
                state.waiting[chosen] = nil
            } else {
                state.waiting[chosen] = queue
                state.turns.append(chosen)
            }
            state.free -= 1
            state.held[chosen, default: 0] += 1
            return waiter
        }
        next?.continuation.resume()
    }
}
