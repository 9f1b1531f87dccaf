/// Values written as PDF syntax, for the postcards (`PressDocument`) and the sheets
/// (`Imposer`) alike.
public enum PDFSyntax {
    /// A number as PDF writes it: up to 4 decimals, no exponent, no trailing zeros.
    public static func number(_ value: Double) -> String {
        let rounded = (value * 10000).rounded() / 10000
        if rounded == 0 { return "0" }
        var text = "\(rounded)"
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// A PDF text string: a literal for printable ASCII, else UTF-16BE with its byte order mark.
    public static func text(_ value: String) -> String {
        if value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) {
            var escaped = ""
            for character in value {
                if character == "\\" || character == "(" || character == ")" { escaped.append("\\") }
                escaped.append(character)
            }
            return "(\(escaped))"
        }
        let units = value.utf16.map { unit in
            let hex = String(unit, radix: 16, uppercase: true)
            return String(repeating: "0", count: 4 - hex.count) + hex
        }.joined()
        return "<FEFF\(units)>"
    }
}
