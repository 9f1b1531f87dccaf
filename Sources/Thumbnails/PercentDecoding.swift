/// Percent-decoding of URL parts (RFC 3986), strict: a `%` not followed by two hex digits
/// makes the whole part invalid instead of being passed through.
package enum PercentDecoding {
    /// The bytes of `text` with every `%XX` decoded once, or nil when an escape is malformed.
    /// - Parameter plusIsSpace: decode `+` as a space (query strings).
    package static func decode(_ text: Substring, plusIsSpace: Bool = false) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return bytes
    }

    /// `decode` as UTF-8 text, or nil when an escape is malformed or the bytes are not UTF-8.
    package static func decodeText(_ text: Substring, plusIsSpace: Bool = false) -> String? {
        guard let bytes = decode(text, plusIsSpace: plusIsSpace) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
