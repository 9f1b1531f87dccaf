// `sockaddr_in6` and `in_addr` belong to NIO's CNIOLinux module once NIO is loaded (the two
// share the header), so MemberImportVisibility asks for it by name.
import CNIOLinux

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Where an endpoint may point: `https://` on a public address. A URL whose host resolves to
/// a loopback, private, link-local, shared (CGNAT), multicast or reserved address is refused,
/// so an API key cannot make the service call into its own network; with `serve
/// --allow-loopback-webhooks`, loopback addresses (and plain `http://` to them) are allowed,
/// for a receiver on the same machine. Checked when the endpoint is made and again before
/// each delivery (a name may resolve elsewhere later).
///
/// The check gives the address it approved (`Pinned`), and the attempt connects to that
/// address (the webhook senders' pinned clients), with the name for TLS (SNI, the
/// certificate checked against it) and the `Host` header: a name that answers another address to a second lookup (DNS
/// rebinding) is never looked up a second time.
struct WebhookAddress: Sendable {
    /// Whether loopback receivers are allowed (`--allow-loopback-webhooks`).
    let allowLoopback: Bool

    /// An endpoint's host and the address an attempt connects to.
    struct Pinned: Sendable, Equatable {
        /// The URL's host (without brackets).
        let host: String
        /// The address approved for it.
        let address: Address
    }

    /// Why `url` cannot be an endpoint, or nil when it can, its name resolved now (blocking).
    func refusal(_ url: String) -> String? {
        do {
            _ = try pinned(url)
            return nil
        } catch {
            return error.reason
        }
    }

    /// The address an attempt to `url` connects to: the first its host resolves to, once
    /// every address it resolves to is allowed; or why it cannot be (blocking: a lookup; the
    /// service looks hosts up through `HostLookups`, bounded in time and per key).
    /// - Throws: `WebhookRefusal` naming the cause.
    func pinned(_ url: String) throws(WebhookRefusal) -> Pinned {
        let name = try Self.host(of: url, allowLoopback: allowLoopback)
        return try pinned(url, host: name, addresses: Self.resolve(name))
    }

    /// The host of `url` (without brackets), once its shape is an endpoint's.
    /// - Throws: `WebhookRefusal` for a URL that cannot be one, whatever it resolves to.
    static func host(of url: String, allowLoopback: Bool) throws(WebhookRefusal) -> String {
        if let problem = shape(url, allowLoopback: allowLoopback) { throw WebhookRefusal(reason: problem) }
        guard let host = URLComponents(string: url)?.host else {
            throw WebhookRefusal(reason: "url must be an absolute https URL")
        }
        return host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
    }

    /// The address an attempt to `url`, whose host `host` resolved to `addresses`, connects to.
    /// - Throws: `WebhookRefusal` when none, or one of them, is not allowed.
    func pinned(_ url: String, host: String, addresses: [Address]) throws(WebhookRefusal) -> Pinned {
        guard let first = addresses.first else { throw WebhookRefusal(reason: "url's host \(host) does not resolve") }
        for address in addresses {
            if Self.isLoopback(address) {
                if !allowLoopback {
                    throw WebhookRefusal(reason: "url resolves to a loopback address (\(address.text))")
                }
            } else if Self.isForbidden(address) {
                throw WebhookRefusal(reason: "url resolves to a private or reserved address (\(address.text))")
            }
        }
        if URLComponents(string: url)?.scheme?.lowercased() == "http" && !addresses.allSatisfy(Self.isLoopback) {
            throw WebhookRefusal(reason: "url must be https (http only to a loopback receiver)")
        }
        return Pinned(host: host, address: first)
    }

    /// What the URL itself must be, before any lookup.
    static func shape(_ url: String, allowLoopback: Bool) -> String? {
        guard url.utf8.count <= 2048 else { return "url is longer than 2048 bytes" }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else { return "url must be an absolute https URL; received \(url.prefix(100))" }
        guard scheme == "https" || (scheme == "http" && allowLoopback) else {
            return "url must be https; received \(scheme)"
        }
        guard components.user == nil && components.password == nil else {
            return "url must not hold a user name or password"
        }
        guard components.fragment == nil else { return "url must not have a fragment" }
        return nil
    }

    /// An IPv4 or IPv6 address, in network order.
    struct Address: Sendable, Equatable {
        let bytes: [UInt8]

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// The address `text` writes (an IPv6 one with or without brackets), or nil.
        init?(literal text: String) {
            guard let bytes = AddressRange.parse(text) else { return nil }
            self.bytes = bytes
        }

        var text: String {
            if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
            return stride(from: 0, to: 16, by: 2).map { String(Int(bytes[$0]) << 8 | Int(bytes[$0 + 1]), radix: 16) }
                .joined(separator: ":")
        }
    }

    /// Every address `name` resolves to (a literal address is itself).
    static func resolve(_ name: String) -> [Address] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var found: [Address] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let info = next {
            if info.pointee.ai_family == AF_INET, let raw = info.pointee.ai_addr {
                raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    withUnsafeBytes(of: $0.pointee.sin_addr) { found.append(Address(bytes: Array($0))) }
                }
            } else if info.pointee.ai_family == AF_INET6, let raw = info.pointee.ai_addr {
                raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    withUnsafeBytes(of: $0.pointee.sin6_addr) { found.append(Address(bytes: Array($0))) }
                }
            }
            next = info.pointee.ai_next
        }
        return found
    }

    /// 127.0.0.0/8 and ::1 (and IPv4 loopback mapped into IPv6).
    static func isLoopback(_ address: Address) -> Bool {
        let v4 = ipv4(address)
        if let v4 { return v4[0] == 127 }
        return address.bytes == [UInt8](repeating: 0, count: 15) + [1]
    }

    /// Private, link-local, shared, unspecified, documentation, multicast and reserved ranges
    /// (RFC 6890's special-purpose registries, the parts a public receiver never has), and
    /// the v6 forms that carry a v4 address (mapped, compatible, 6to4, Teredo, NAT64).
    static func isForbidden(_ address: Address) -> Bool {
        if isLoopback(address) { return true }
        if let v4 = ipv4(address) {
            let (a, b, c) = (v4[0], v4[1], v4[2])
            return a == 0 || a == 10 || (a == 100 && (64...127).contains(b)) || (a == 169 && b == 254)
                || (a == 172 && (16...31).contains(b)) || (a == 192 && b == 168) || (a == 192 && b == 0 && c == 0)
                || (a == 192 && b == 0 && c == 2) || (a == 198 && (18...19).contains(b))
                || (a == 198 && b == 51 && c == 100) || (a == 203 && b == 0 && c == 113) || a >= 224
        }
        let bytes = address.bytes
        let word = { (index: Int) in Int(bytes[2 * index]) << 8 | Int(bytes[2 * index + 1]) }
        // A v6 address that carries a v4 one (6to4) is judged by that one.
        if word(0) == 0x2002 { return isForbidden(Address(bytes: Array(bytes[2..<6]))) }
        return bytes.prefix(12).allSatisfy { $0 == 0 }  // ::, ::a.b.c.d (IPv4-compatible, deprecated)
            || (bytes.prefix(8).allSatisfy { $0 == 0 } && word(4) == 0xFFFF && word(5) == 0)  // ::ffff:0:a.b.c.d
            || bytes[0] & 0xFE == 0xFC  // fc00::/7, unique local
            || (bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80)  // fe80::/10, link-local
            || (bytes[0] == 0xFE && bytes[1] & 0xC0 == 0xC0)  // fec0::/10, site-local (deprecated)
            || bytes[0] == 0xFF  // multicast
            || (word(0) == 0x2001 && word(1) == 0x0DB8)  // documentation
            || (word(0) == 0x2001 && word(1) == 0)  // Teredo (carries an IPv4 address)
            || (word(0) == 0x0064 && word(1) == 0xFF9B)  // NAT64
    }

    /// The IPv4 address of a v4 address or a v4-mapped v6 one (::ffff:a.b.c.d).
    static func ipv4(_ address: Address) -> [UInt8]? {
        if address.bytes.count == 4 { return address.bytes }
        if address.bytes.prefix(10).allSatisfy({ $0 == 0 }) && address.bytes[10] == 0xFF && address.bytes[11] == 0xFF {
            return Array(address.bytes.suffix(4))
        }
        return nil
    }
}
