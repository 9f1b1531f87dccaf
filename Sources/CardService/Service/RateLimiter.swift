import Synchronization

/// A token bucket per key (an API key, a client address, a key's scans' CPU seconds): `rate`
/// tokens a second on average, bursts up to `burst`. A request that finds the bucket empty is
/// refused with the seconds until a token is back.
final class RateLimiter: Sendable {
    let rate: Double
    let burst: Double
    /// The most a bucket owes, in tokens: what is charged past it is forgiven, so the wait
    /// never grows beyond `(1 + maxDebt) / rate` seconds.
    let maxDebt: Double
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }
    private let buckets = Mutex([String: Bucket]())
    /// Buckets kept at most: past it, the full ones are dropped (a full bucket is as good as
    /// none), so that many addresses cannot grow the table without end.
    private static let kept = 10_000

    /// - Parameters:
    ///   - rate: tokens a second.
    ///   - burst: the bucket's size (at least 1: a key may always make one request).
    ///   - maxDebt: the most a bucket may owe, in tokens.
    init(rate: Double, burst: Double, maxDebt: Double = 10_000) {
        self.rate = rate
        self.burst = max(1, burst)
        self.maxDebt = max(0, maxDebt)
    }

    /// Takes a token from `key`'s bucket.
    /// - Returns: nil when taken, else the whole seconds to wait (`Retry-After`).
    func take(_ key: String, now: ContinuousClock.Instant = .now) -> Int? {
        buckets.withLock { buckets in
            var bucket = refilled(buckets[key], now: now)
            defer {
                buckets[key] = bucket
                if buckets.count > Self.kept { prune(&buckets, now: now) }
            }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
        }
    }

    /// Takes `tokens` from `key`'s bucket whether or not it has them, into debt (down to
    /// `maxDebt`): what was done already (a failed authentication, a scan's CPU time) is paid
    /// for, so that requests sent at once, which all found credit before any paid, wait the
    /// longer.
    func charge(_ key: String, tokens: Double = 1, now: ContinuousClock.Instant = .now) {
        buckets.withLock { buckets in
            var bucket = refilled(buckets[key], now: now)
            bucket.tokens = max(-maxDebt, bucket.tokens - tokens)
            buckets[key] = bucket
            if buckets.count > Self.kept { prune(&buckets, now: now) }
        }
    }

    /// The whole seconds until `key`'s bucket has a token, or nil when it has one now
    /// (nothing is taken).
    func wait(_ key: String, now: ContinuousClock.Instant = .now) -> Int? {
        buckets.withLock { buckets in
            guard let kept = buckets[key] else { return nil }
            let bucket = refilled(kept, now: now)
            return bucket.tokens >= 1 ? nil : max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
        }
    }

    private func refilled(_ bucket: Bucket?, now: ContinuousClock.Instant) -> Bucket {
        guard var bucket else { return Bucket(tokens: burst, updated: now) }
        let elapsed = now - bucket.updated
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        bucket.tokens = min(burst, bucket.tokens + seconds * rate)
        bucket.updated = now
        return bucket
    }

    /// Drops the full buckets, then, while too many are left, the half least recently used
    /// (an address still sending keeps its bucket).
    private func prune(_ buckets: inout [String: Bucket], now: ContinuousClock.Instant) {
        buckets = buckets.filter { refilled($0.value, now: now).tokens < burst }
        guard buckets.count > Self.kept else { return }
        let newest = buckets.sorted { $0.value.updated > $1.value.updated }.prefix(Self.kept / 2)
        buckets = Dictionary(uniqueKeysWithValues: newest.map { ($0.key, $0.value) })
    }
}
