import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Set by the SIGINT handler; an atomic store is async-signal-safe.
private let interruptRequested = Atomic<Bool>(false)

/// Ctrl-C (SIGINT) as a flag: the batch stops taking work, finishes what is running,
/// writes its report and exits 130.
final class Interrupt: Sendable {
    private let announced = Atomic<Bool>(false)

    /// Replaces SIGINT's default action (which would kill the process mid-write) with a flag.
    init() {
        signal(SIGINT) { _ in interruptRequested.store(true, ordering: .relaxed) }
        // A parent may start us with SIGINT blocked (the mask is inherited, e.g. from a
        // thread of a test runner): unblock it, or Ctrl-C would stay pending for ever.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// Whether Ctrl-C was pressed; says so once on stderr.
    var requested: Bool {
        guard interruptRequested.load(ordering: .relaxed) else { return false }
        if !announced.exchange(true, ordering: .relaxed) {
            Console.error("\ncardrender: interrupted; finishing the cards in progress (no partial files are left).")
        }
        return true
    }
}
