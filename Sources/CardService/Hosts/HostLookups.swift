import NIOPosix
import Synchronization

/// The lookups of webhook endpoints' hosts, for the endpoints made and for each attempt: on
/// threads of their own (never the server's shared pool, which `/thumb` uses), each answered
/// within `timeout`, one key's at most `perOwner` at once (counted until the lookup's thread
/// returns, not until its answer was given up on), a host's answer kept `keep` (a name looked
/// up for every attempt of a drain costs a query each).
///
/// Why: `getaddrinfo` blocks and cannot be cancelled; a name server that never answers holds
/// its thread for glibc's 10 to 30 s whatever the caller does. Bounding the wait alone let one
/// key's hanging hosts hold every lookup thread, and every other key's endpoints then failed.
final class HostLookups: Sendable {
    private struct State {
        /// Lookups running, by key.
        var running: [String: Int] = [:]
        /// Answers, by host: the addresses and when they were looked up.
        var answers: [String: (addresses: [WebhookAddress.Address], at: ContinuousClock.Instant)] = [:]
    }

    private let pool: NIOThreadPool
    private let state = Mutex(State())
    private let resolve: @Sendable (String) -> [WebhookAddress.Address]
    let perOwner: Int
    let timeout: Duration
    let keep: Duration
    /// Answers kept at most.
    private static let kept = 1024

    /// - Parameters:
    ///   - threads: lookups at once, over every key.
    ///   - perOwner: lookups of one key at once.
    ///   - timeout: how long a caller waits for an answer.
    ///   - keep: how long an answer is used again.
    ///   - resolve: the lookup (the system's resolver; the tests give a slow one).
    init(
        threads: Int, perOwner: Int, timeout: Duration, keep: Duration = .seconds(10),
        resolve: @escaping @Sendable (String) -> [WebhookAddress.Address] = WebhookAddress.resolve
    ) {
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
        pool.start()
        self.perOwner = max(1, perOwner)
        self.timeout = timeout
        self.keep = keep
        self.resolve = resolve
    }

    /// The address an attempt of `owner`'s to `url` connects to (`WebhookAddress.pinned`).
    /// - Throws: `WebhookRefusal`: the URL's, the addresses', or that the lookup took too long
    ///   or too many of the key's are running.
    func pinned(_ url: String, owner: String, address: WebhookAddress) async throws(WebhookRefusal)
        -> WebhookAddress.Pinned
    {
        let host = try WebhookAddress.host(of: url, allowLoopback: address.allowLoopback)
        if let literal = WebhookAddress.Address(literal: host) {
            return try address.pinned(url, host: host, addresses: [literal])
        }
        return try address.pinned(url, host: host, addresses: try await addresses(of: host, owner: owner))
    }

    /// What `host` resolves to: a recent answer, or a lookup bounded by `timeout`.
    private func addresses(of host: String, owner: String) async throws(WebhookRefusal) -> [WebhookAddress.Address] {
        enum Start {
            case known([WebhookAddress.Address])
            case busy
            case lookUp
        }
        let fresh = keep
        let start = state.withLock { state -> Start in
            if let answer = state.answers[host], ContinuousClock.now - answer.at < fresh {
                return .known(answer.addresses)
            }
            guard state.running[owner, default: 0] < perOwner else { return .busy }
            state.running[owner, default: 0] += 1
            return .lookUp
        }
        switch start {
        case .known(let addresses): return addresses
        case .busy:
            throw WebhookRefusal(
                reason: "url's host cannot be looked up now: \(perOwner) lookups of this key's hosts are still running")
        case .lookUp: break
        }
        let answer = Answer()
        let (pool, resolve, keep, timeout) = (pool, resolve, keep, timeout)
        let found: [WebhookAddress.Address]? = await withCheckedContinuation { continuation in
            answer.await(continuation)
            // The lookup: its thread is counted against the key until it returns.
            Task {
                let addresses = try? await pool.runIfActive { resolve(host) }
                self.state.withLock { state in
                    state.running[owner, default: 1] -= 1
                    if state.running[owner] == 0 { state.running[owner] = nil }
                    if let addresses {
                        if state.answers.count >= Self.kept {
                            state.answers = state.answers.filter { ContinuousClock.now - $0.value.at < keep }
                        }
                        if state.answers.count < Self.kept { state.answers[host] = (addresses, .now) }
                    }
                }
                answer.give(addresses ?? [])
            }
            Task {
                try? await Task.sleep(for: timeout)
                answer.give(nil)
            }
        }
        guard let found else {
            throw WebhookRefusal(reason: "url's host could not be looked up within \(timeout)")
        }
        return found
    }

    /// Stops the lookup threads.
    func shutdown() async {
        try? await pool.shutdownGracefully()
    }

    /// The first answer of two racers (the lookup, the clock), given once.
    private final class Answer: Sendable {
        private let state = Mutex<(CheckedContinuation<[WebhookAddress.Address]?, Never>?, given: Bool)>((nil, false))

        func await(_ continuation: CheckedContinuation<[WebhookAddress.Address]?, Never>) {
            state.withLock { $0.0 = continuation }
        }

        func give(_ addresses: [WebhookAddress.Address]?) {
            let continuation = state.withLock { state -> CheckedContinuation<[WebhookAddress.Address]?, Never>? in
                guard !state.given else { return nil }
                state.given = true
                return state.0
            }
            continuation?.resume(returning: addresses)
        }
    }
}
