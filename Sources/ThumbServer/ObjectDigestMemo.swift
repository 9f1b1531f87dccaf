import Synchronization

/// The content digests of photos in a bucket that were stored without a SHA-256, remembered
/// in memory by the object's identity (bucket, key, entity tag, size), so that such a photo
/// is downloaded once per server to learn its digest, not again on every request whose
/// thumbnail is already in the cache (another width, after the memory cache dropped it).
///
/// What it trusts: that an object whose entity tag and size are unchanged has unchanged
/// content (S3 gives a replaced object a new tag unless the bytes are the same). A miss never
/// relies on it: the bytes then downloaded and rendered are hashed, and the thumbnail is
/// stored under the key of those bytes (`CachedThumbnailer.thumbnail(inputDigest:...)`).
/// Bounded by a count; when full, the oldest remembered digest goes first.
final class ObjectDigestMemo: Sendable {
    private struct State {
        var digests: [String: String] = [:]
        /// Identities in the order they were remembered; a ring once `capacity` is reached.
        var order: [String] = []
        var oldest = 0
    }

    /// How many digests are kept.
    let capacity: Int
    private let state = Mutex(State())

    /// - Parameter capacity: how many digests to keep (at least 1); 100,000 take ~20 MB.
    init(capacity: Int = 100_000) {
        self.capacity = max(1, capacity)
    }

    /// The remembered digest of the object with this identity, if any.
    func digest(for identity: String) -> String? {
        state.withLock { $0.digests[identity] }
    }

    /// Remembers `digest` for the object with this identity.
    func remember(_ digest: String, for identity: String) {
        state.withLock { state in
            guard state.digests.updateValue(digest, forKey: identity) == nil else { return }
            if state.order.count < capacity {
                state.order.append(identity)
            } else {
                state.digests.removeValue(forKey: state.order[state.oldest])
                state.order[state.oldest] = identity
                state.oldest = (state.oldest + 1) % capacity
            }
        }
    }
}
