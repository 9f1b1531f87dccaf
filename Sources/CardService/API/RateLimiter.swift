import Synchronization

/// A token bucket per key (an API key, a client address): `rate` tokens a second on average,
/// bursts up to `burst`. A request that finds the bucket empty is refused with the seconds
/// until a token is back.
final class RateLimiter: Sendable {
    let rate: Double
    let burst: Double
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
    init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = max(1, burst)
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

    /// Takes a token from `key`'s bucket whether or not it has one, into debt: what was
    /// done already (a failed authentication) is paid for, so that requests sent at once,
    /// which all found a token before any took one, lock their sender out the longer.
    func charge(_ key: String, now: ContinuousClock.Instant = .now) {
        buckets.withLock { buckets in
            var bucket = refilled(buckets[key], now: now)
            bucket.tokens = max(-Self.debt, bucket.tokens - 1)
            buckets[key] = bucket
            if buckets.count > Self.kept { prune(&buckets, now: now) }
        }
    }

    /// The most a bucket owes, in tokens.
    private static let debt = 10_000.0

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
