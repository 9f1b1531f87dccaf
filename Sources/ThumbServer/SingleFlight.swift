import Synchronization

/// One piece of work per key in flight: callers that ask for a key already being worked on
/// wait for that work's result instead of starting it again.
final class SingleFlight<Value: Sendable>: Sendable {
    private let flights = Mutex<[String: Task<Value, any Error>]>([:])
    private let joiners = Atomic<Int>(0)

    /// How many callers are waiting now for work another caller started.
    var joinersWaiting: Int { joiners.load(ordering: .relaxed) }

    /// The result of `work` for `key`, shared with every caller that asks while it runs.
    /// - Returns: the value and whether this caller joined work another caller started.
    /// - Throws: what `work` throws, to every caller that waited for it.
    func run(
        _ key: String, _ work: @escaping @Sendable () async throws -> Value
    ) async throws -> (value: Value, joined: Bool) {
        let (task, joined) = flights.withLock { flights -> (Task<Value, any Error>, Bool) in
            if let running = flights[key] {
                joiners.add(1, ordering: .relaxed)
                return (running, true)
            }
            // The task removes itself when done; the lock orders that after this insertion.
            let task = Task {
                defer { _ = self.flights.withLock { $0.removeValue(forKey: key) } }
                return try await work()
            }
            flights[key] = task
            return (task, false)
        }
        defer { if joined { joiners.subtract(1, ordering: .relaxed) } }
        return (try await task.value, joined)
    }
}
