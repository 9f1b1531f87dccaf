import Synchronization

/// What went wrong with a store during this process, shared by every copy of an `S3Store`.
///
/// The first failure is kept (a batch's exit status comes from it). After a transient one
/// (no answer, 5xx after the retries) the store is taken as down, so that further calls fail
/// at once instead of each waiting out its timeouts and the work goes on without the shared
/// cache. A batch keeps it down for the rest of the run and exits 75 so that the scheduler
/// runs the shard again later; a server (`recoverAfter` set) tries the store again once that
/// long has passed since the last failure.
public final class S3Health: Sendable {
    private struct State {
        var first: S3Error?
        var latest: S3Error?
        var since: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    /// How long the store stays down after a transient failure; nil: for the whole process.
    public let recoverAfter: Duration?

    /// - Parameter recoverAfter: how long a transient failure takes the store down; nil for
    ///   the rest of the process (a batch).
    public init(recoverAfter: Duration? = nil) {
        self.recoverAfter = recoverAfter
    }

    /// The first failure, if any.
    public var failure: S3Error? { state.withLock { $0.first } }

    /// The failure that stops further calls now: the latest one while it is transient and
    /// recent (any age for a batch).
    var down: S3Error? {
        state.withLock { state in
            guard let latest = state.latest, latest.isTransient, let since = state.since else { return nil }
            if let recoverAfter, ContinuousClock.now - since >= recoverAfter { return nil }
            return latest
        }
    }

    /// Records `error`; the first failure is kept as well as the latest.
    func record(_ error: S3Error) {
        state.withLock { state in
            if state.first == nil { state.first = error }
            state.latest = error
            state.since = .now
        }
    }
}
