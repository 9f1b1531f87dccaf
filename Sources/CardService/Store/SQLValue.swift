import SQLKit

/// A value bound into, or read out of, the service's SQL: the few types its tables use.
public enum SQLValue: Sendable, Equatable {
    case int(Int)
    case text(String)
    case null

    /// `value` as text, or NULL when nil.
    static func text(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
    /// `value` as an integer, or NULL when nil.
    static func int(_ value: Int?) -> SQLValue { value.map { .int($0) } ?? .null }
}

/// One row of a result as sql-kit read it, its columns by name.
public struct ResultRow: Sendable {
    let row: any SQLRow

    /// The text in `column`, or nil for NULL (or a column the query did not return).
    func text(_ column: String) -> String? {
        (try? row.decode(column: column, as: String?.self)) ?? nil
    }

    /// The integer in `column`, or nil for NULL.
    func int(_ column: String) -> Int? {
        (try? row.decode(column: column, as: Int?.self)) ?? nil
    }
}
