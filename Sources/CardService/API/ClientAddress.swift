// `sockaddr_in6`'s fields are owned by NIO's CNIOLinux module once NIO is loaded (the two share
// the header), so MemberImportVisibility asks for it by name.
import CNIOLinux
import NIOCore

/// The client a request is counted against by the failed-authentication throttle: the peer's
/// address, or, when the peer is a trusted proxy (`serve --trusted-proxy`), the address its
/// `X-Forwarded-For` names (read from the right, past every trusted proxy: what nginx's
/// `real_ip_recursive` does). An IPv4 client is its address; an IPv6 client its /64 (one host
/// has a whole /64 to draw addresses from).
enum ClientAddress {
    /// The throttle's key for a request from `peer` that carried `forwardedFor` (every
    /// `X-Forwarded-For` value, in order).
    static func key(peer: SocketAddress?, forwardedFor: [String], trusted: [AddressRange]) -> String {
        guard var address = peer.flatMap(bytes(of:)) else { return "unknown" }
        if trusted.contains(where: { $0.contains(address) }) {
            let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map {
                $0.trimmed(of: " \t")
            }
            for hop in hops.reversed() {
                // A hop that is not an address ends the walk at the last trusted one.
                guard let next = AddressRange.parse(hop) else { break }
                address = next
                if !trusted.contains(where: { $0.contains(next) }) { break }
            }
        }
        return key(address)
    }

    /// The address bytes of a socket address (4 for IPv4, 16 for IPv6).
    static func bytes(of address: SocketAddress) -> [UInt8]? {
        switch address {
        case .v4(let v4): withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6): withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        default: nil
        }
    }

    /// An IPv4 address as text, an IPv6 one as its /64 (an IPv4 address mapped into IPv6,
    /// ::ffff:a.b.c.d, is that IPv4 address).
    static func key(_ address: [UInt8]) -> String {
        var address = address
        if address.count == 16, address.prefix(10).allSatisfy({ $0 == 0 }), address[10] == 0xFF, address[11] == 0xFF {
            address = Array(address.suffix(4))
        }
        if address.count == 4 { return address.map(String.init).joined(separator: ".") }
        return address.prefix(8).map { String($0, radix: 16) }.joined(separator: ".") + "/64"
    }
}
