import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Signs and checks URLs: `sig` = base64url (no padding) of HMAC-SHA256 over the path and
/// query as sent, up to the `sig` parameter, which must come last:
/// `/thumb/a.jpg?width=200&sig=…` signs `/thumb/a.jpg?width=200`.
public struct URLSigner: Sendable {
    /// The key.
    public let key: SigningKey

    public init(key: SigningKey) {
        self.key = key
    }

    /// `target` (path and optional query) with its `sig` parameter appended.
    public func sign(_ target: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array(target.utf8), using: key.key)
        let separator = target.contains("?") ? "&" : "?"
        return target + separator + "sig=" + Self.base64URL(Array(code))
    }

    /// Checks the signature of a request target and returns the query without it.
    /// - Parameters:
    ///   - path: the raw path.
    ///   - query: the raw query (without `?`), whose last parameter must be `sig`.
    /// - Throws: `ThumbRequestError.forbidden` for a missing, malformed or wrong signature.
    public func verify(path: Substring, query: Substring) throws(ThumbRequestError) -> Substring {
        let lastStart = query.lastIndex(of: "&").map { query.index(after: $0) } ?? query.startIndex
        let last = query[lastStart...]
        guard last.hasPrefix("sig=") else {
            throw .forbidden(reason: "signing is on and the URL has no sig parameter at the end")
        }
        let signature = last.dropFirst(4)
        let signed = lastStart == query.startIndex ? query.prefix(0) : query[..<query.index(before: lastStart)]
        guard let code = Self.decodeBase64URL(signature), code.count == SHA256.byteCount else {
            throw .forbidden(reason: "the sig parameter is not a base64url HMAC-SHA256")
        }
        let message = signed.isEmpty ? String(path) : "\(path)?\(signed)"
        // Constant time: swift-crypto compares the whole code whatever the first difference.
        guard HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: Array(message.utf8), using: key.key) else {
            throw .forbidden(reason: "the signature does not match")
        }
        return signed
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    static func decodeBase64URL(_ text: Substring) -> [UInt8]? {
        guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            return nil
        }
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while standard.count % 4 != 0 { standard.append("=") }
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }
}
