import SQLKit

/// One of the service's statements for sql-kit: its text, written once for both databases
/// with `$1`, `$2`, ... placeholders, serialized with each placeholder in the database's own
/// form (sql-kit's dialect: `$1` for PostgreSQL, `?1` for SQLite) and its values bound.
///
/// A NULL value is written into the text as `NULL` rather than bound: an untyped NULL
/// parameter is what the two drivers disagree on (PostgreSQL must infer its type), and the
/// literal means the same in every place the service's SQL puts a value. The other values
/// are renumbered in order, so every placeholder sent is used.
struct SQLStatement: SQLExpression {
    /// The text, with `$N` for the N-th of `binds`.
    let sql: String
    /// The values, in placeholder order.
    let binds: [SQLValue]

    func serialize(to serializer: inout SQLSerializer) {
        // The placeholder each non-NULL value is sent as (1-based, in order of the values).
        var sent: [Int: Int] = [:]
        for (index, value) in binds.enumerated() where value != .null {
            sent[index + 1] = sent.count + 1
        }
        var text = Substring(sql)
        var quoted = false
        var pending = ""
        while let character = text.first {
            text = text.dropFirst()
            if character == "'" { quoted.toggle() }
            guard character == "$", !quoted,
                let digits = text.prefix(while: \.isASCII).prefix(while: \.isNumber).nonEmpty,
                let number = Int(digits), (1...binds.count).contains(number)
            else {
                pending.append(character)
                continue
            }
            text = text.dropFirst(digits.count)
            serializer.write(pending)
            pending = ""
            if let placeholder = sent[number] {
                serializer.dialect.bindPlaceholder(at: placeholder).serialize(to: &serializer)
            } else {
                serializer.write("NULL")
            }
        }
        serializer.write(pending)
        for value in binds {
            switch value {
            case .int(let number): serializer.binds.append(number)
            case .text(let words): serializer.binds.append(words)
            case .null: break
            }
        }
    }
}

extension Substring {
    /// Itself, or nil when empty.
    fileprivate var nonEmpty: Substring? { isEmpty ? nil : self }
}

/// Runs a statement on any sql-kit database and reads its rows.
extension SQLDatabase {
    /// `sql` with `binds` for `$1`, `$2`, ..., and its rows.
    func rows(_ sql: String, _ binds: [SQLValue]) async throws -> [ResultRow] {
        try await raw("\(SQLStatement(sql: sql, binds: binds))").all().map(ResultRow.init)
    }
}
