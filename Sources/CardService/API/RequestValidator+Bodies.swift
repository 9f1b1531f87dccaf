import CardKit
// JSONSerialization (not in FoundationEssentials) gives a malformed body's reason in words.
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension RequestValidator {
    // MARK: JSON bodies

    /// Appends to `errors` what is wrong with `value` for `schema`, each with its field path.
    func validate(
        _ value: JSONValue, schema: JSONValue, at path: String, into errors: inout [Problem.FieldError]
    ) {
        guard errors.count < 100, case .object(let schema) = resolved(schema) else { return }
        if case .array(let choices)? = schema["oneOf"] {
            // The alternative whose type the value has decides; none: the types are named.
            let fitting = choices.first { accepts(value, kind: resolved($0)) }
            guard let fitting else {
                let expected = choices.flatMap { kinds(of: resolved($0)) }
                errors.append(.init(field: path, detail: "must be \(Self.list(Self.unique(expected), or: true))"))
                return
            }
            validate(value, schema: fitting, at: path, into: &errors)
            return
        }
        guard accepts(value, kind: .object(schema)) else {
            errors.append(
                .init(
                    field: path,
                    detail: "must be \(Self.list(kinds(of: .object(schema)), or: true)), not \(Self.kind(of: value))"))
            return
        }
        switch value {
        case .object(let fields):
            let properties: [String: JSONValue]
            if case .object(let declared)? = schema["properties"] { properties = declared } else { properties = [:] }
            if case .array(let required)? = schema["required"] {
                for case .string(let name) in required where fields[name] == nil {
                    errors.append(.init(field: Self.join(path, name), detail: "is required"))
                }
            }
            let closed = schema["additionalProperties"] == .bool(false)
            for name in fields.keys.sorted() where errors.count < 100 {
                guard let field = fields[name] else { continue }
                if let property = properties[name] {
                    validate(field, schema: property, at: Self.join(path, name), into: &errors)
                } else if closed {
                    errors.append(
                        .init(
                            field: Self.join(path, name),
                            detail:
                                "is not a field here (a typo?); the fields are \(Self.list(properties.keys.sorted(), or: false))"
                        ))
                }
            }
        case .array(let items):
            if case .number(let most)? = schema["maxItems"], Double(items.count) > most {
                errors.append(.init(field: path, detail: "has \(items.count) items; \(Int(most)) at most"))
            }
            if case .number(let least)? = schema["minItems"], Double(items.count) < least {
                errors.append(.init(field: path, detail: "has \(items.count) items; \(Int(least)) at least"))
            }
            if schema["uniqueItems"] == .bool(true) {
                // Each value given more than once is named once, at its first repeat.
                var seen = Set<JSONValue>()
                var named = Set<JSONValue>()
                for (index, element) in items.enumerated() where !seen.insert(element).inserted {
                    guard named.insert(element).inserted else { continue }
                    errors.append(
                        .init(
                            field: "\(path)[\(index)]",
                            detail: "repeats \(element.shortDescription); each item may be given once"))
                }
            }
            if let item = schema["items"] {
                for (index, element) in items.enumerated() where errors.count < 100 {
                    validate(element, schema: item, at: "\(path)[\(index)]", into: &errors)
                }
            }
        case .string(let text):
            if case .array(let choices)? = schema["enum"], !choices.contains(.string(text)) {
                errors.append(
                    .init(field: path, detail: "must be one of \(Self.list(choices.compactMap(\.text), or: true))"))
            } else if let problem = stringProblem(text, schema: schema) {
                errors.append(.init(field: path, detail: problem))
            }
        case .number(let number):
            if !Self.range(schema).contains(number) {
                errors.append(.init(field: path, detail: "must be a number" + Self.rangeWords(schema)))
            }
        case .bool, .null: break
        }
    }

    /// `schema` with its `$ref` followed.
    func resolved(_ schema: JSONValue) -> JSONValue {
        var schema = schema
        for _ in 0..<8 {
            guard case .object(let fields) = schema, case .string(let reference)? = fields["$ref"],
                reference.hasPrefix("#/components/schemas/"),
                let target = schemas[String(reference.dropFirst("#/components/schemas/".count))]
            else { return schema }
            schema = target
        }
        return schema
    }

    /// The JSON types `schema` takes (its `type`, one or a list).
    func types(of schema: JSONValue) -> [String]? {
        guard case .object(let fields) = schema else { return nil }
        switch fields["type"] {
        case .string(let type)?: return [type]
        case .array(let list)?: return list.compactMap(\.text)
        default: return nil
        }
    }

    func kinds(of schema: JSONValue) -> [String] {
        if case .object(let fields) = schema, case .array(let choices)? = fields["oneOf"] {
            return choices.flatMap { kinds(of: resolved($0)) }
        }
        if case .object(let fields) = schema, case .array(let choices)? = fields["enum"],
            types(of: schema) == ["string"]
        {
            return choices.compactMap(\.text).map { "\"\($0)\"" }
        }
        return (types(of: schema) ?? ["any value"]).map(Self.words)
    }

    func accepts(_ value: JSONValue, kind schema: JSONValue) -> Bool {
        if case .object(let fields) = schema, case .array(let choices)? = fields["oneOf"] {
            return choices.contains { accepts(value, kind: resolved($0)) }
        }
        guard let types = types(of: schema) else { return true }
        return types.contains { type in
            switch (type, value) {
            case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object),
                ("number", .number):
                return true
            case ("integer", .number(let number)):
                return number == number.rounded()
            default: return false
            }
        }
    }
}
