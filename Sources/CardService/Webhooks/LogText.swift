/// Text from outside (a webhook receiver's answer) as a log line may hold it: control
/// characters and line separators escaped (`\n`, `\u{1b}`), so it cannot end the line and
/// forge another, cut at `limit` characters.
enum LogText {
    static func escaped(_ text: String, limit: Int = 200) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(limit) {
            switch scalar {
            case "\n": shown += "\\n"
            case "\r": shown += "\\r"
            case "\t": shown += "\\t"
            case "\\": shown += "\\\\"
            default:
                let value = scalar.value
                if value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
                    || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
                {
                    shown += "\\u{\(String(value, radix: 16))}"
                } else {
                    shown.unicodeScalars.append(scalar)
                }
            }
        }
        return text.unicodeScalars.count > limit ? shown + "…" : shown
    }
}
