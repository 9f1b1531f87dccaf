import Synchronization

/// The hashes of the API keys in use, read from the database at most once a second, for the
/// one question the throttle asks without a query: could this secret be a key? An address
/// over its failed-authentication rate is answered 429 without touching the database unless
/// its secret is one of these (a valid key is then looked up as always, revocation included).
///
/// Why: every request's key is looked up in the database (a revoked key is refused by every
/// node at once), so a client sending wrong keys in a loop would queue everyone's database
/// work behind its lookups (on SQLite, behind the one writer's lock).
final class KnownKeys: Sendable {
    private struct State {
        var hashes: Set<String> = []
        var read: ContinuousClock.Instant?
        var reading = false
    }

    private let book: OrderBook
    private let state = Mutex(State())
    /// How old the set may be.
    let maxAge: Duration

    init(book: OrderBook, maxAge: Duration = .seconds(1)) {
        self.book = book
        self.maxAge = maxAge
    }

    /// Whether `secret` is shaped like a key and its hash was in use when last read (read
    /// again first when older than `maxAge`; while one request reads it, the others use the
    /// set as it was).
    func mayBeKey(_ secret: String) async -> Bool {
        guard OrderBook.isKeyShaped(secret) else { return false }
        let stale = state.withLock { state -> Bool in
            guard !state.reading, state.read.map({ ContinuousClock.now - $0 > maxAge }) ?? true else { return false }
            state.reading = true
            return true
        }
        if stale {
            let hashes = try? await book.activeKeyHashes()
            state.withLock { state in
                if let hashes {
                    state.hashes = hashes
                    state.read = .now
                }
                state.reading = false
            }
        }
        let hash = OrderBook.hash(secret)
        return state.withLock { $0.hashes.contains(hash) }
    }
}
