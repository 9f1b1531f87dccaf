import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Batch progress: a single updating line on a terminal (done/total, rate, ETA), plain
/// lines otherwise; nothing but errors with `--quiet`. Called one completion at a time.
final class Progress: Sendable {
    private let total: Int
    private let quiet: Bool
    private let terminal = isatty(STDERR_FILENO) == 1
    private let started = ContinuousClock.now
    private let count = Mutex(0)

    init(total: Int, quiet: Bool) {
        self.total = total
        self.quiet = quiet
    }

    /// Reports one finished item: `line` for logs, `error` (always shown) when it failed.
    func finished(_ line: String, error: String?) {
        let done = count.withLock { value -> Int in
            value += 1
            return value
        }
        if let error {
            if terminal { Console.errorRaw("\r\u{1B}[K") }
            Console.error("cardrender: \(error)")
        }
        guard !quiet else { return }
        if terminal {
            let elapsed = (ContinuousClock.now - started).components
            let seconds = max(0.001, Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
            let rate = Double(done) / seconds
            let eta = rate > 0 ? Int((Double(total - done) / rate).rounded()) : 0
            let rateText = (rate * 10).rounded() / 10
            Console.errorRaw("\r\u{1B}[K[\(done)/\(total)] \(rateText) cards/s, ETA \(eta) s")
        } else if error == nil {
            Console.out("[\(done)/\(total)] \(line)")
        }
    }

    /// Ends the progress line.
    func end() {
        if terminal && !quiet { Console.errorRaw("\n") }
    }
}
