/// A thumbnail parameter that cannot be taken (from a URL's query, `cardrender thumb`'s
/// options or a preset): which one, what it takes, and what was given. The server answers it
/// as 400 (`ThumbRequestError.badParameter`); the command line prints `message`.
public struct ThumbParameterError: Error, Sendable, Equatable {
    /// The parameter's name (`width`, `fit`, ...), or `query` for a query that is not one.
    public var name: String
    /// What the parameter takes, in words.
    public var expected: String
    /// What was given, or nil when the parameter was missing.
    public var received: String?

    public init(name: String, expected: String, received: String?) {
        self.name = name
        self.expected = expected
        self.received = received
    }

    /// One line for a person: the parameter, what it takes, and what it received (cut to 64
    /// characters, so a body never grows with the URL).
    public var message: String {
        let shown = received.map { "\"\($0.count <= 64 ? $0 : String($0.prefix(64)) + "…")\"" } ?? "nothing"
        return "\(name): expected \(expected); received \(shown)."
    }
}
