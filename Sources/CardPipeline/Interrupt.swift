import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Set by the SIGINT handler; an atomic store is async-signal-safe.
private let interruptRequested = Atomic<Bool>(false)

/// Ctrl-C (SIGINT) as a flag for batches: they stop taking work, finish what is running,
/// write their report and exit 130.
public final class Interrupt: Sendable {
    private let announced = Atomic<Bool>(false)
    private let announce: @Sendable () -> Void

    /// Replaces SIGINT's default action (which would kill the process mid-write) with a flag.
    /// - Parameter announce: called once, when the flag is first seen set.
    public init(announce: @escaping @Sendable () -> Void) {
        self.announce = announce
        signal(SIGINT) { _ in interruptRequested.store(true, ordering: .relaxed) }
        // A parent may start us with SIGINT blocked (the mask is inherited, e.g. from a
        // thread of a test runner): unblock it, or Ctrl-C would stay pending for ever.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Whether Ctrl-C was pressed.
    public var requested: Bool {
        guard interruptRequested.load(ordering: .relaxed) else { return false }
        if !announced.exchange(true, ordering: .relaxed) { announce() }
        return true
    }
}
