import Foundation  // NSCondition: a worker waits for the bound without spinning

/// A bound on the bytes of whole-picture decodes in flight at once, shared by a server's
/// workers: a decode reserves its estimate before it starts and waits while others hold the
/// bound, then gives it back. A reservation larger than the bound runs alone (it waits for
/// the others, and no other starts beside it). Streamed and DCT-scaled JPEG decodes need no
/// reservation; an HEIC does (libheif decodes the whole picture, about 100 MB for 12 MP with
/// libvips's copy): without the bound, two workers decoding two iPhone photos at once were
/// most of `serve`'s peak memory under misses (benchmarks/RESULTS.md, 2026-11-27).
public final class DecodeBudget: Sendable {
    /// The bound in bytes.
    public let capacity: Int
    /// Guards `held` and wakes the waiting reservations when bytes are given back.
    private let condition = NSCondition()
    private let held = HeldBytes()

    /// - Parameter capacity: the bound in bytes (at least 1).
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Runs `body` once `bytes` fit beside the reservations in flight (at once when nothing
    /// is held) and every earlier reservation has started, holding them until it returns.
    /// `body` must not reserve again (a thread waiting on itself would never wake).
    public func reserving<T>(_ bytes: Int, _ body: () throws -> T) rethrows -> T {
        let bytes = max(0, bytes)
        condition.lock()
        // First come, first served: a large reservation waiting for the others to finish is
        // not overtaken by smaller ones that would fit (it would wait for ever under load).
        let ticket = held.nextTicket
        held.nextTicket += 1
        while ticket != held.serving || (held.bytes > 0 && held.bytes + bytes > capacity) {
            held.waiting += 1
            condition.wait()
            held.waiting -= 1
        }
        held.serving += 1
        held.bytes += bytes
        condition.broadcast()  // the next ticket may fit beside this one
        condition.unlock()
        defer {
            condition.lock()
            held.bytes -= bytes
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }

    /// Bytes reserved now.
    public var reserved: Int {
        condition.lock()
        defer { condition.unlock() }
        return held.bytes
    }

    /// Reservations waiting now.
    public var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return held.waiting
    }

    /// The counters, read and written only under `condition`'s lock.
    private final class HeldBytes: @unchecked Sendable {
        // @unchecked: every field is touched only between `condition.lock()` and
        // `unlock()` in `DecodeBudget` (the class is private to it), so no two threads access
        // them at once.
        package var bytes = 0
        package var waiting = 0
        /// The ticket the next reservation takes, and the one allowed in next.
        package var nextTicket = 0
        package var serving = 0
    }
}
