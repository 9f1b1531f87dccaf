/// A card spec that cannot be rendered as written: names the file, the field, what was
/// expected and what was received.
public struct CardSpecError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The spec file (or "defaults" for command-line defaults).
    public let file: String
    /// The field path, e.g. `card.dpi` or `transform.offset.x`.
    public let field: String
    /// The whole sentence after the field name.
    public let problem: String

    public init(file: String, field: String, problem: String) {
        self.file = file
        self.field = field
        self.problem = problem
    }

    /// "Expected X for Y but received Z" in cardrender's words.
    public static func expected(_ what: String, at field: String, received value: JSONValue?, in file: String)
        -> CardSpecError
    {
        CardSpecError(
            file: file, field: field,
            problem: "expected \(what), received \(value?.shortDescription ?? "nothing (the field is missing)").")
    }

    public var description: String { "\(file): \(field): \(problem)" }
}
