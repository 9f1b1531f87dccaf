/// An endpoint's URL as the service keeps it: written as RFC 3986 allows (nothing a client
/// library would have to encode first: no space, no control character, no byte outside
/// ASCII, `%` only before two hex digits), and normalised (RFC 3986 section 6.2.2): the scheme
/// and host in lower case, the scheme's default port dropped, an empty path `/`, percent
/// encodings in upper case.
///
/// Why: a URL stored as sent (with a CR LF, say) reaches logs and the receiver's request line
/// as it is; and two spellings of one URL would be two endpoints.
enum WebhookURL {
    /// The characters RFC 3986 allows in a URI, besides `%` with its two hex digits.
    private static let allowed = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=".utf8)

    /// `text` normalised.
    /// - Throws: `WebhookRefusal` saying why it is not a URL as RFC 3986 writes one.
    static func normalised(_ text: String) throws(WebhookRefusal) -> String {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) else {
                    throw WebhookRefusal(
                        reason: "url has a % not followed by two hex digits (at character \(index + 1))")
                }
                index += 3
                continue
            }
            guard allowed.contains(byte) else {
                let shown =
                    byte < 0x20 || byte == 0x7F
                    ? "a control character (\(byte))"
                    : byte >= 0x80 ? "a character outside ASCII" : "'\(Character(UnicodeScalar(byte)))'"
                throw WebhookRefusal(
                    reason:
                        "url holds \(shown) at character \(index + 1); write it as RFC 3986 does (percent-encoded)")
            }
            index += 1
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[(colon + 1)...].starts(with: "//".utf8) else {
            throw WebhookRefusal(reason: "url must be an absolute URL (scheme://host/path)")
        }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        let rest = bytes[(colon + 3)...]
        let authorityEnd = rest.firstIndex { "/?#".utf8.contains($0) } ?? rest.endIndex
        var authority = String(decoding: rest[..<authorityEnd], as: UTF8.self)
        var tail = String(decoding: rest[authorityEnd...], as: UTF8.self)
        // The host in lower case (user information, refused later, is left as it is).
        let at = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
        var host = String(authority[at...]).lowercased()
        let defaultPort = scheme == "https" ? ":443" : scheme == "http" ? ":80" : nil
        // `host:443` on https is `host`; `[::1]:443` likewise.
        if let defaultPort, host.hasSuffix(defaultPort) { host.removeLast(defaultPort.count) }
        authority = String(authority[..<at]) + host
        if tail.isEmpty || tail.first == "?" || tail.first == "#" { tail = "/" + tail }
        return scheme + "://" + authority + uppercasedEscapes(tail)
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
    }

    /// `text` with the hex digits of its percent encodings in upper case.
    private static func uppercasedEscapes(_ text: String) -> String {
        var bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count {
                for offset in 1...2 where (97...102).contains(bytes[index + offset]) { bytes[index + offset] -= 32 }
                index += 3
            } else {
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
