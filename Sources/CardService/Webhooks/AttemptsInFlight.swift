import Synchronization

/// The webhook attempts this node has in flight, by delivery, with their endpoints: how many
/// senders are busy, and the attempts to cancel when their endpoint is deleted or disabled.
final class AttemptsInFlight: Sendable {
    private struct Attempt {
        let endpoint: String
        let cancel: @Sendable () -> Void
        var abandoned = false
    }

    private let attempts = Mutex<[String: Attempt]>([:])

    /// Attempts in flight.
    var count: Int { attempts.withLock { $0.count } }

    /// The endpoints of the attempts in flight.
    var endpoints: Set<String> { attempts.withLock { Set($0.values.map(\.endpoint)) } }

    /// Records the attempt `delivery` (an event and an endpoint), cancelled by `cancel`.
    func add(_ delivery: String, endpoint: String, cancel: @escaping @Sendable () -> Void) {
        attempts.withLock { $0[delivery] = Attempt(endpoint: endpoint, cancel: cancel) }
    }

    /// Forgets the attempt `delivery`.
    /// - Returns: whether it was abandoned (its endpoint deleted or disabled meanwhile).
    @discardableResult
    func remove(_ delivery: String) -> Bool {
        attempts.withLock { $0.removeValue(forKey: delivery)?.abandoned ?? false }
    }

    /// Cancels every attempt to an endpoint of `asked` that is not in `enabled` (the endpoints
    /// asked about, and those of them found still enabled), marking it abandoned.
    /// - Returns: how many were cancelled.
    @discardableResult
    func abandon(asked: Set<String>, enabled: Set<String>) -> Int {
        let gone = asked.subtracting(enabled)
        guard !gone.isEmpty else { return 0 }
        let cancels = attempts.withLock { attempts -> [@Sendable () -> Void] in
            var cancels: [@Sendable () -> Void] = []
            for (key, attempt) in attempts where !attempt.abandoned && gone.contains(attempt.endpoint) {
                attempts[key]?.abandoned = true
                cancels.append(attempt.cancel)
            }
            return cancels
        }
        for cancel in cancels { cancel() }
        return cancels.count
    }
}
