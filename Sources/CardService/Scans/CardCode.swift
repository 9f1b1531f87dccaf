import Crypto

/// What a card's code holds (the Data Matrix on its back, `VersoRenderer.code`): the card's id
/// and a short signature, so that a code cannot be made for a card by anyone without the
/// service's secret, nor one card's code changed into another's.
///
/// 27 bytes: `C`, `R`, the format (1), the id's 128 bits (`card_` and 32 hex digits), then
/// the first 64 bits of HMAC-SHA256 over `cardrender card code 1` and the id's bytes, keyed
/// with the service's secret (`OrderBook.codeSecret`). Base256 encodation makes them a 22 x 22
/// symbol. 64 bits: a forger guessing gets 2^-64 a try, and each try is an API request.
struct CardCode: Sendable {
    /// The key that signs the codes.
    let key: SymmetricKey

    /// The bytes every code starts with (format 1).
    static let prefix: [UInt8] = [0x43, 0x52, 0x01]
    /// The symbol's side in modules for a code's 27 bytes.
    static let side = 22
    /// Bytes of the signature.
    static let signatureLength = 8
    /// What the signature covers before the id's bytes.
    static let context = Array("cardrender card code 1".utf8)
    /// A code of the right length that names no card and is signed by no one: what a preview
    /// draws where the card's own code will be.
    static let placeholder = prefix + [UInt8](repeating: 0, count: 16 + signatureLength)

    init(secret: [UInt8]) {
        key = SymmetricKey(data: secret)
    }

    /// The code of the card `id` (`card_` and 32 hex digits), or nil for an id that is not one.
    func bytes(card id: String) -> [UInt8]? {
        guard let raw = Self.idBytes(id) else { return nil }
        return Self.prefix + raw + signature(raw)
    }

    /// What a scanned code says.
    enum Reading: Sendable, Equatable {
        /// A card of this service: its id.
        case card(String)
        /// A code in this service's format whose signature is not this service's: made by
        /// someone else, or changed.
        case forged
        /// Not a code of this service's format.
        case foreign
    }

    /// Reads a code's bytes and checks its signature (in constant time).
    func read(_ bytes: [UInt8]) -> Reading {
        let length = Self.prefix.count + 16 + Self.signatureLength
        guard bytes.count == length, bytes.starts(with: Self.prefix) else { return .foreign }
        let raw = Array(bytes[Self.prefix.count..<(Self.prefix.count + 16)])
        let signed = Array(bytes.suffix(Self.signatureLength))
        let expected = signature(raw)
        let difference = zip(signed, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) }
        guard difference == 0 else { return .forged }
        return .card("card_" + raw.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined())
    }

    private func signature(_ raw: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Self.context + raw, using: key).prefix(Self.signatureLength))
    }

    /// The 16 bytes of a card id, or nil.
    static func idBytes(_ id: String) -> [UInt8]? {
        guard id.hasPrefix("card_") else { return nil }
        let hex = Array(id.utf8.dropFirst(5))
        guard hex.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) {
            guard let high = Self.nibble(hex[index]), let low = Self.nibble(hex[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
