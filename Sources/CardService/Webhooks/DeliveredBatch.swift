import Synchronization

/// The deliveries this node's senders found delivered, waiting to be recorded together: one
/// transaction for many (SQLite commits each with `fsync`: a transaction per delivery held the
/// outbox's drain to 250 events a second). Until recorded, a delivery keeps its lease, so it
/// still counts as in flight and its card's next event waits for it.
final class DeliveredBatch: Sendable {
    private let waiting = Mutex<[OrderBook.Delivery]>([])
    /// Signalled when the first delivery arrives (the recorder sleeps until then).
    let arrived = Wakeup()
    /// Signalled when `full` wait.
    let filled = Wakeup()
    /// How many are recorded without waiting for more (as many as one endpoint may have in
    /// flight: the drain of one endpoint waits for them).
    static let full = 8

    /// Adds a delivered delivery.
    func add(_ delivery: OrderBook.Delivery) {
        let count = waiting.withLock { waiting in
            waiting.append(delivery)
            return waiting.count
        }
        if count == 1 { arrived.signal() }
        if count >= Self.full { filled.signal() }
    }

    /// Everything waiting, taken out.
    func take() -> [OrderBook.Delivery] {
        waiting.withLock { waiting in
            defer { waiting = [] }
            return waiting
        }
    }
}
