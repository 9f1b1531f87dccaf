/// FNV-1a, 64 bits: a stable hash of bytes with no dependency, the same in every process and
/// on every machine, for names and keys that only need to differ (temporary file names, a
/// profile's identity in a cache key, the IDs of a PDF's metadata). Not a digest against an
/// attacker: use SHA-256 (swift-crypto) for that.
public enum StableHash {
    /// The hash of `bytes`.
    public static func fnv1a<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return hash
    }
}
