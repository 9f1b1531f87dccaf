// `sockaddr_in6` and `in_addr` belong to NIO's CNIOLinux module once NIO is loaded (the two
// share the header), so MemberImportVisibility asks for it by name.
import CNIOLinux

#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 network in CIDR form (`10.0.0.0/8`, `2001:db8::/32`; an address alone is
/// itself, /32 or /128): which peers are trusted proxies (`serve --trusted-proxy`).
public struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    /// The network's address bytes (4 or 16), in network order.
    let bytes: [UInt8]
    /// Leading bits that must match.
    let prefix: Int

    /// The range `text` writes, or nil when it is not one.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.parse(String(parts[0])) else { return nil }
        let bits = address.count * 8
        if parts.count == 2 {
            guard let prefix = Int(parts[1]), (0...bits).contains(prefix), parts[1].allSatisfy(\.isASCII) else {
                return nil
            }
            self.prefix = prefix
        } else {
            prefix = bits
        }
        bytes = address
    }

    /// The range in CIDR form (`10.0.0.0/8`).
    public var description: String {
        (bytes.count == 4
            ? bytes.map(String.init).joined(separator: ".")
            : stride(from: 0, to: 16, by: 2).map { String(Int(bytes[$0]) << 8 | Int(bytes[$0 + 1]), radix: 16) }
                .joined(separator: ":")) + "/\(prefix)"
    }

    /// Whether `address` (4 or 16 bytes; an IPv4 address mapped into IPv6 counts as IPv4)
    /// is in the range.
    func contains(_ address: [UInt8]) -> Bool {
        var address = address
        if address.count == 16, address.prefix(10).allSatisfy({ $0 == 0 }), address[10] == 0xFF, address[11] == 0xFF {
            address = Array(address.suffix(4))
        }
        guard address.count == bytes.count else { return false }
        var left = prefix
        for (mine, theirs) in zip(bytes, address) where left > 0 {
            let mask: UInt8 = left >= 8 ? 0xFF : ~(0xFF >> UInt8(left))
            if mine & mask != theirs & mask { return false }
            left -= 8
        }
        return true
    }

    /// The bytes of an IPv4 or IPv6 address written as text, or nil.
    static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        let bare = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        if inet_pton(AF_INET6, bare, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }
}
