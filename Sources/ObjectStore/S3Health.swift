import Synchronization

/// What went wrong with a store during this process, shared by every copy of an `S3Store`.
///
/// The first failure is kept. After a transient one (no answer, 5xx after the retries) the
/// store is taken as down for the rest of the run: further calls fail at once instead of
/// each waiting out its timeouts, the work goes on without the shared cache, and the
/// command exits 75 at the end so that the scheduler runs the shard again later.
public final class S3Health: Sendable {
    private let first = Mutex<S3Error?>(nil)

    public init() {}

    /// The first failure, if any.
    public var failure: S3Error? { first.withLock { $0 } }

    /// The failure that stops further calls: the first one, when it was transient.
    var down: S3Error? { first.withLock { $0?.isTransient == true ? $0 : nil } }

    /// Records `error` unless an earlier failure is kept.
    func record(_ error: S3Error) {
        first.withLock { if $0 == nil { $0 = error } }
    }
}
