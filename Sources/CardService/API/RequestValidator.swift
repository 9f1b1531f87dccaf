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

    static func parameters(_ value: JSONValue?) -> [Parameter] {
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
            // JSON has no limit on a number's size, but no number here can hold 1e400: the
            // field that holds it is named.
            if let (path, number) = JSONNumberScan.firstOutOfRange(in: data) {
                let detail = "is \(number.prefix(40)), beyond what a number can be here"
                throw Problem(
                    .unprocessableContent, "The body is refused: \(path.isEmpty ? "the body" : path) \(detail).",
                    errors: [Problem.FieldError(field: path, detail: detail)])
            }
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
    func parameterProblem(_ text: String, schema: JSONValue) -> String? {
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

    func stringProblem(_ text: String, schema: [String: JSONValue]) -> String? {
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
        if schema["format"] == .string("date-time"), !Self.isDateTime(text) {
            return "must be a date and time in RFC 3339's form, such as 2026-11-27T10:00:00Z"
        }
        return nil
    }
}

extension RequestValidator {
    /// The schema keywords this validator enforces; every other keyword the document uses
    /// must be one of `annotations` (a test walks the document's keywords).
    static let enforcedKeywords: Set<String> = [
        "type", "properties", "required", "additionalProperties", "items", "maxItems", "minItems", "uniqueItems",
        "enum", "oneOf", "minimum", "maximum", "maxLength", "minLength", "pattern", "format", "$ref",
    ]
    /// Keywords that describe and do not constrain: text for people, the default the code
    /// applies, and the media type of a binary body (checked against the operation's types).
    static let annotations: Set<String> = [
        "description", "title", "default", "contentMediaType", "example", "examples",
    ]

    /// Whether `text` is an RFC 3339 date-time (`2026-11-27T10:00:00Z`, `...00.123+01:00`): its
    /// form, and a month, day, hour, minute and second in range.
    static func isDateTime(_ text: String) -> Bool {
        let pattern = /(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})/
        guard let match = text.wholeMatch(of: pattern), let month = Int(match.2), let day = Int(match.3),
            let hour = Int(match.4), let minute = Int(match.5), let second = Int(match.6)
        else { return false }
        return (1...12).contains(month) && (1...31).contains(day) && hour < 24 && minute < 60 && second <= 60
    }
}

extension JSONValue {
    /// The string's text, nil for other values.
    var text: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}
