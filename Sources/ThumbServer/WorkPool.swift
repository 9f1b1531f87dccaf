import NIOPosix
import ServiceLifecycle
import Synchronization
import VipsKit

/// The threads that do pixel work, with admission control.
///
/// Pixel work (decoding, resizing, encoding, hashing a photo) blocks a thread for tens of
/// milliseconds, so it never runs on the event loop or Swift's cooperative pool: it runs on
/// `workers` dedicated threads (NIO's `NIOThreadPool`). At most `workers + queueLimit` jobs
/// are admitted at once; one more is refused at once with `Overloaded` (→ 503), so overload
/// costs a quick refusal instead of a queue, and memory, that grows without bound.
///
/// As a `Service` it lives until graceful shutdown, then lets running jobs finish and stops
/// its threads (the HTTP server, started after it, has stopped by then).
public final class WorkPool: Service, Sendable {
    /// Every worker is busy and the queue is full.
    public struct Overloaded: Error, Sendable {}

    /// What the pool is doing now.
    public struct Load: Sendable, Equatable {
        /// Jobs admitted and waiting for a worker.
        public var queued: Int
        /// Jobs running.
        public var busy: Int
    }

    /// Worker threads.
    public let workers: Int
    /// Jobs allowed to wait.
    public let queueLimit: Int
    private let pool: NIOThreadPool
    private let state = Mutex(Load(queued: 0, busy: 0))

    public init(workers: Int, queueLimit: Int) {
        self.workers = max(1, workers)
        self.queueLimit = max(0, queueLimit)
        pool = NIOThreadPool(numberOfThreads: self.workers)
        pool.start()
    }

    /// The current load.
    public var load: Load { state.withLock { $0 } }

    /// Runs `body` on a worker thread and returns its result.
    /// - Throws: `Overloaded` when `workers + queueLimit` jobs are already admitted;
    ///   whatever `body` throws.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let admitted = state.withLock { load -> Bool in
            guard load.queued + load.busy < workers + queueLimit else { return false }
            load.queued += 1
            return true
        }
        guard admitted else { throw Overloaded() }
        // Whoever moves the ticket out of `.queued` first owns the queue slot: the worker
        // (it starts the job) or the caller (the job never ran: swift-nio throws
        // `CancellationError` for a caller cancelled while queued, `ThreadPoolInactive` when
        // the pool stopped). So the slot is given back exactly once, however the await ends.
        let ticket = Ticket()
        do {
            return try await pool.runIfActive { [self] in
                guard ticket.take(.running) else { throw CancellationError() }
                state.withLock {
                    $0.queued -= 1
                    $0.busy += 1
                }
                defer {
                    // Releases libvips's per-thread buffers: the threads live as long as the server.
                    Vips.endThreadJob()
                    state.withLock { $0.busy -= 1 }
                }
                return try body()
            }
        } catch {
            if ticket.take(.abandoned) { state.withLock { $0.queued -= 1 } }
            throw error
        }
    }

    /// One admitted job's place: queued until the worker starts it or the caller gives up.
    private final class Ticket: Sendable {
        enum Phase { case queued, running, abandoned }
        private let phase = Mutex(Phase.queued)

        /// Moves a queued ticket to `next`; false when it had already left the queue.
        func take(_ next: Phase) -> Bool {
            phase.withLock { phase in
                guard phase == .queued else { return false }
                phase = next
                return true
            }
        }
    }

    /// Waits for graceful shutdown, then for running jobs, and stops the threads.
    public func run() async throws {
        try? await gracefulShutdown()
        try await pool.shutdownGracefully()
    }
}
