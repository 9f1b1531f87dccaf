import CardKit
// JSONSerialization (not in FoundationEssentials) gives a malformed body's reason in words.
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension RequestValidator {
    // MARK: Words

    static func words(_ type: String) -> String {
        switch type {
        case "string": "text"
        case "integer": "a whole number"
        case "number": "a number"
        case "boolean": "true or false"
        case "array": "a list"
        case "object": "an object"
        case "null": "null"
        default: type
        }
    }

    static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "true or false"
        case .number(let number): number == number.rounded() ? "a whole number" : "a number"
        case .string: "text"
        case .array: "a list"
        case .object: "an object"
        }
    }

    static func range(_ schema: [String: JSONValue]) -> ClosedRange<Double> {
        var low = -Double.greatestFiniteMagnitude
        var high = Double.greatestFiniteMagnitude
        if case .number(let least)? = schema["minimum"] { low = least }
        if case .number(let most)? = schema["maximum"] { high = most }
        return low...high
    }

    static func rangeWords(_ schema: [String: JSONValue]) -> String {
        switch (schema["minimum"], schema["maximum"]) {
        case (.number(let low)?, .number(let high)?): " from \(number(low)) to \(number(high))"
        case (.number(let low)?, nil): " of at least \(number(low))"
        case (nil, .number(let high)?): " of at most \(number(high))"
        default: ""
        }
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// "a, b or c" (`or`) or "a, b and c".
    static func list(_ items: [String], or: Bool) -> String {
        guard items.count > 1 else { return items.first ?? "nothing" }
        return items.dropLast().joined(separator: ", ") + (or ? " or " : " and ") + items[items.count - 1]
    }

    static func unique(_ items: [String]) -> [String] {
        var seen = Set<String>()
        return items.filter { seen.insert($0).inserted }
    }

    static func join(_ path: String, _ name: String) -> String { path.isEmpty ? name : path + "." + name }

    /// The text as received, quoted, cut at 60 characters, control characters escaped.
    static func quoted(_ text: String) -> String {
        let cut = text.count > 60 ? String(text.prefix(60)) + "…" : text
        let escaped = cut.unicodeScalars.map { scalar in
            scalar.value < 0x20 || scalar.value == 0x7F
                ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }.joined()
        return "\"\(escaped)\""
    }

    /// The media type of a `Content-Type` value, without parameters, in lower case.
    static func mediaType(_ value: String) -> String {
        String(value.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// JSONSerialization's reason, in words without its type names.
    static func syntaxWords(_ error: any Error) -> String {
        let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? ""
        if reason.hasPrefix("Number "), reason.hasSuffix(" is not representable in Swift.") {
            let number = reason.dropFirst("Number ".count).dropLast(" is not representable in Swift.".count)
            return "the number \(number.prefix(40)) is beyond what a number here can be."
        }
        if reason.isEmpty || reason.contains("Swift") || reason.contains("NS") { return "it cannot be read." }
        return reason.hasSuffix(".") ? reason : reason + "."
    }
}
