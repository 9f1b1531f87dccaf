import Synchronization

/// A token bucket per API key: `rate` requests a second on average, bursts up to `burst`.
/// A request that finds the bucket empty is refused with the seconds until a token is back.
final class RateLimiter: Sendable {
    let rate: Double
    let burst: Double
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }
    private let buckets = Mutex([String: Bucket]())

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
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(burst, bucket.tokens + seconds * rate)
            bucket.updated = now
            defer { buckets[key] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
        }
    }
}
