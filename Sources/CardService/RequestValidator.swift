import CardKit
// JSONSerialization (not in FoundationEssentials) gives a malformed body's reason in words.
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Checks a `/v1` request against the OpenAPI document (`OpenAPIDocument.json`) before the
/// generated code reads it: its path, query and header parameters, its body's media type,
/// and a JSON body against its schema, every unknown field refused by name.
///
/// The generated code checks the same things, but its errors are Swift's decoding errors
/// (type names, coding keys, the first unknown field only); these are sentences that name
/// the parameter or field and say what it takes. The document is the only list: nothing
/// here names a route, a parameter or a field.
struct RequestValidator: Sendable {
    /// One operation of the document.
    struct Operation: Sendable {
        let method: String
        /// The path's segments: a literal, or a `{parameter}`'s name.
        let segments: [Segment]
        let parameters: [Parameter]
        /// The media types the body may have; empty for an operation without a body.
        let bodyTypes: [String]
        /// The schema of a JSON body.
        let jsonSchema: JSONValue?
    }

    /// A segment of a path template.
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// A parameter: its name, where it is, whether it is required and its schema.
    struct Parameter: Sendable {
        let name: String
        let location: String
        let required: Bool
        let schema: JSONValue
    }

    let operations: [Operation]
    /// The document's component schemas, for `$ref`.
    let schemas: [String: JSONValue]

    /// The validator of `document` (OpenAPI 3.1 JSON).
    init(document: String = OpenAPIDocument.json) {
        guard case .object(let root) = try? JSONDecoder().decode(JSONValue.self, from: Data(document.utf8)),
            case .object(let paths)? = root["paths"]
        else { preconditionFailure("the OpenAPI document is JSON with paths (OpenAPIDocumentTests)") }
        if case .object(let components)? = root["components"], case .object(let schemas)? = components["schemas"] {
            self.schemas = schemas
        } else {
            schemas = [:]
        }
        var operations: [Operation] = []
        for (path, item) in paths {
            guard case .object(let item) = item else { continue }
            let shared = Self.parameters(item["parameters"])
            let segments = path.split(separator: "/").map { part in
                part.hasPrefix("{") ? Segment.parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
            }
            for (method, operation) in item {
                guard case .object(let operation) = operation, method != "parameters" else { continue }
                var types: [String] = []
                var schema: JSONValue?
                if case .object(let body)? = operation["requestBody"], case .object(let content)? = body["content"] {
                    types = content.keys.sorted()
                    if case .object(let json)? = content["application/json"] { schema = json["schema"] }
                }
                let own = Self.parameters(operation["parameters"])
                let merged = own + shared.filter { parameter in !own.contains { $0.name == parameter.name } }
                operations.append(
                    Operation(
                        method: method.uppercased(), segments: segments, parameters: merged, bodyTypes: types,
                        jsonSchema: schema))
            }
        }
        self.operations = operations
    }

    private static func parameters(_ value: JSONValue?) -> [Parameter] {
        guard case .array(let list)? = value else { return [] }
        return list.compactMap { item in
            guard case .object(let fields) = item, case .string(let name)? = fields["name"],
                case .string(let location)? = fields["in"]
            else { return nil }
            return Parameter(
                name: name, location: location, required: fields["required"] == .bool(true),
                schema: fields["schema"] ?? .object([:]))
        }
    }

    /// The operation a request is for, with its path parameters, or nil when no path of the
    /// document matches (the router answers those: 404). The path is split as the router
    /// splits it (empty segments dropped: `/v1//cards` is `/v1/cards`).
    /// - Throws: `Problem` 405 with `Allow` when the path is the document's but not the method.
    func operation(of request: Request) throws -> (operation: Operation, pathValues: [String: String])? {
        let parts = request.uri.path.split(separator: "/").map(String.init)
        var allowed: [String] = []
        for operation in operations where operation.segments.count == parts.count {
            var values: [String: String] = [:]
            var matches = true
            for (segment, part) in zip(operation.segments, parts) {
                switch segment {
                case .literal(let literal): if literal != part { matches = false }
                case .parameter(let name): values[name] = part.removingPercentEncoding ?? part
                }
            }
            guard matches else { continue }
            guard operation.method == request.method.rawValue else {
                allowed.append(operation.method)
                continue
            }
            return (operation, values)
        }
        guard allowed.isEmpty else {
            var problem = Problem(
                .methodNotAllowed,
                "\(request.uri.path) takes \(Self.list(allowed.sorted(), or: true)); received \(request.method.rawValue)."
            )
            problem.headers[.allow] = allowed.sorted().joined(separator: ", ")
            throw problem
        }
        return nil
    }

    /// The query's parameters, each name and value percent-decoded (`+` a space), as the
    /// generated code reads them.
    /// - Throws: `Problem` 400 for a part that is not `name=value`.
    static func queryParameters(_ query: String?) throws -> [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return try query.split(separator: "&", omittingEmptySubsequences: false).map { part in
            guard let equals = part.firstIndex(of: "="), equals != part.startIndex else {
                throw Problem(
                    .badRequest,
                    "The query's part \(quoted(String(part))) is not name=value; every part of the query must be.")
            }
            func decoded(_ text: Substring) throws -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                guard let decoded = spaced.removingPercentEncoding else {
                    throw Problem(
                        .badRequest, "The query's part \(quoted(String(part))) has a % not followed by two hex digits.")
                }
                return decoded
            }
            return (try decoded(part[..<equals]), try decoded(part[part.index(after: equals)...]))
        }
    }

    /// Checks `request` for `operation` (its body already collected into `body`).
    /// - Throws: `Problem` 400 for a parameter or malformed JSON, 415 for a media type the
    ///   operation does not take, 422 for a JSON body that does not match its schema.
    func check(
        _ request: Request, body: ByteBuffer, against matched: (operation: Operation, pathValues: [String: String])
    ) throws {
        let (operation, pathValues) = matched
        let query = try Self.queryParameters(request.uri.query)
        for parameter in operation.parameters {
            let values: [String]
            switch parameter.location {
            case "path": values = pathValues[parameter.name].map { [$0] } ?? []
            case "query": values = query.filter { $0.name == parameter.name }.map(\.value)
            case "header":
                let name: HTTPField.Name? = HTTPField.Name(parameter.name)
                values = name.map { request.headers[values: $0] } ?? []
            default: values = []
            }
            let label = parameter.location == "header" ? "The header \(parameter.name)" : parameter.name
            if values.count > 1 {
                throw Problem(.badRequest, "\(label) is given \(values.count) times; give it once.")
            }
            guard let value = values.first else {
                if parameter.required { throw Problem(.badRequest, "\(label) is required.") }
                continue
            }
            if let problem = parameterProblem(value, schema: resolved(parameter.schema)) {
                throw Problem(.badRequest, "\(label) \(problem); received \(Self.quoted(value)).")
            }
        }
        guard !operation.bodyTypes.isEmpty else { return }
        let type = request.headers[.contentType].map(Self.mediaType)
        guard let type, operation.bodyTypes.contains(type) else {
            let received = type.map { "received \($0)" } ?? "no Content-Type was given"
            throw Problem(
                .unsupportedMediaType,
                "Send the body as \(Self.list(operation.bodyTypes, or: true)); \(received).")
        }
        guard type == "application/json", let schema = operation.jsonSchema else { return }
        let data = Data(body.readableBytesView)
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw Problem(.badRequest, "The body is not valid JSON: \(Self.syntaxWords(error))")
        }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw Problem(.badRequest, "The body is not valid JSON.")
        }
        var errors: [Problem.FieldError] = []
        validate(value, schema: schema, at: "", into: &errors)
        guard !errors.isEmpty else { return }
        let shown = errors.prefix(20).map { "\($0.field.isEmpty ? "the body" : $0.field) \($0.detail)" }
        throw Problem(
            .unprocessableContent,
            "The body is refused: " + shown.joined(separator: "; ") + (errors.count > 20 ? "; …" : "") + ".",
            errors: Array(errors.prefix(100)))
    }

    // MARK: Parameters

    /// What is wrong with a parameter's text for its schema, or nil.
    private func parameterProblem(_ text: String, schema: JSONValue) -> String? {
        guard case .object(let schema) = schema else { return nil }
        switch schema["type"] {
        case .string("integer")?:
            let range = Self.range(schema)
            guard let number = Int(text), range.contains(Double(number)) else {
                return "must be a whole number" + Self.rangeWords(schema)
            }
        case .string("string")?:
            if case .array(let choices)? = schema["enum"], !choices.contains(.string(text)) {
                return "must be one of \(Self.list(choices.compactMap(\.text), or: true))"
            }
            return stringProblem(text, schema: schema)
        default: break
        }
        return nil
    }

    private func stringProblem(_ text: String, schema: [String: JSONValue]) -> String? {
        let count = text.count
        if case .number(let most)? = schema["maxLength"], Double(count) > most {
            return "has \(count) characters; \(Int(most)) at most"
        }
        if case .number(let least)? = schema["minLength"], Double(count) < least {
            return least == 1 ? "is empty" : "has \(count) characters; \(Int(least)) at least"
        }
        if case .string(let pattern)? = schema["pattern"], let regex = try? Regex(pattern),
            (try? regex.wholeMatch(in: text)) == nil
        {
            return pattern.contains("x20-\\x7E")
                ? "must be printable ASCII characters (letters, digits, punctuation, spaces)"
                : "does not have the form this parameter takes"
        }
        return nil
    }

    // MARK: JSON bodies

    /// Appends to `errors` what is wrong with `value` for `schema`, each with its field path.
    private func validate(
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
            if let item = schema["items"] {
                for (index, element) in items.enumerated() {
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
    private func resolved(_ schema: JSONValue) -> JSONValue {
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
    private func types(of schema: JSONValue) -> [String]? {
        guard case .object(let fields) = schema else { return nil }
        switch fields["type"] {
        case .string(let type)?: return [type]
        case .array(let list)?: return list.compactMap(\.text)
        default: return nil
        }
    }

    private func kinds(of schema: JSONValue) -> [String] {
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

    private func accepts(_ value: JSONValue, kind schema: JSONValue) -> Bool {
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

    // MARK: Words

    private static func words(_ type: String) -> String {
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

    private static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "true or false"
        case .number(let number): number == number.rounded() ? "a whole number" : "a number"
        case .string: "text"
        case .array: "a list"
        case .object: "an object"
        }
    }

    private static func range(_ schema: [String: JSONValue]) -> ClosedRange<Double> {
        var low = -Double.greatestFiniteMagnitude
        var high = Double.greatestFiniteMagnitude
        if case .number(let least)? = schema["minimum"] { low = least }
        if case .number(let most)? = schema["maximum"] { high = most }
        return low...high
    }

    private static func rangeWords(_ schema: [String: JSONValue]) -> String {
        switch (schema["minimum"], schema["maximum"]) {
        case (.number(let low)?, .number(let high)?): " from \(number(low)) to \(number(high))"
        case (.number(let low)?, nil): " of at least \(number(low))"
        case (nil, .number(let high)?): " of at most \(number(high))"
        default: ""
        }
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// "a, b or c" (`or`) or "a, b and c".
    static func list(_ items: [String], or: Bool) -> String {
        guard items.count > 1 else { return items.first ?? "nothing" }
        return items.dropLast().joined(separator: ", ") + (or ? " or " : " and ") + items[items.count - 1]
    }

    private static func unique(_ items: [String]) -> [String] {
        var seen = Set<String>()
        return items.filter { seen.insert($0).inserted }
    }

    private static func join(_ path: String, _ name: String) -> String { path.isEmpty ? name : path + "." + name }

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
    private static func syntaxWords(_ error: any Error) -> String {
        let reason = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? ""
        if reason.hasPrefix("Number "), reason.hasSuffix(" is not representable in Swift.") {
            let number = reason.dropFirst("Number ".count).dropLast(" is not representable in Swift.".count)
            return "the number \(number.prefix(40)) is beyond what a number here can be."
        }
        if reason.isEmpty || reason.contains("Swift") || reason.contains("NS") { return "it cannot be read." }
        return reason.hasSuffix(".") ? reason : reason + "."
    }
}

extension JSONValue {
    /// The string's text, nil for other values.
    fileprivate var text: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}
