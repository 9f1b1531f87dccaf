import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Standard Webhooks' signatures (https://www.standardwebhooks.com/, "Signature scheme"):
/// HMAC-SHA256 of `id.timestamp.body` with the endpoint's key, sent as `v1,` and the base64
/// of the MAC, one per secret in force, separated by spaces. Written here from the
/// specification (a few lines of swift-crypto); the tests check it against the
/// specification's own Python library.
enum WebhookSignature {
    /// A new secret: `whsec_` and 24 random bytes in base64 (192 bits, inside the 24 to 64
    /// bytes the specification asks for).
    static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<24).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return "whsec_" + Data(bytes).base64EncodedString()
    }

    /// The `webhook-signature` header for the message `id` sent at `timestamp` (seconds
    /// since 1970) with `body`, signed with each of `secrets`.
    static func header(id: String, timestamp: Int, body: Data, secrets: [String]) -> String {
        var signed = Data("\(id).\(timestamp).".utf8)
        signed.append(body)
        return secrets.compactMap { secret -> String? in
            guard let key = key(of: secret) else { return nil }
            let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key))
            return "v1," + Data(mac).base64EncodedString()
        }.joined(separator: " ")
    }

    /// The key a `whsec_` secret holds (its base64 decoded), or nil for one that is not.
    static func key(of secret: String) -> Data? {
        guard secret.hasPrefix("whsec_") else { return nil }
        return Data(base64Encoded: String(secret.dropFirst("whsec_".count)))
    }
}
