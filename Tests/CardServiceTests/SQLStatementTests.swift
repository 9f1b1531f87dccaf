import Foundation
import TestSupport
import Testing

@testable import CardService

/// The service's one SQL text runs on both databases through sql-kit: `$N` placeholders in
/// any order and repeated, NULL values as the literal, a `$` inside a quoted string left
/// alone, and a refused statement as a `ServiceDatabaseError`.
@Suite struct SQLStatementTests {
    @Test("placeholders in any order, repeated, NULL and quoted text, read back", arguments: DatabaseKind.available)
    func placeholders(database: DatabaseKind) async throws {
        let opened = try await database.open(directory: try Fixtures.scratchDirectory("sql-\(database)"))
        let rows = try await opened.execute(
            "SELECT $2 AS a, $1 AS b, $3 AS c, $2 + 1 AS d, '$1 stays' AS e, $4 AS f",
            [.text("x"), .int(7), .null, .text("é $2 ✓")])
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row.int("a") == 7)
        #expect(row.text("b") == "x")
        #expect(row.text("c") == nil && row.int("c") == nil)
        #expect(row.int("d") == 8)
        #expect(row.text("e") == "$1 stays")
        #expect(row.text("f") == "é $2 ✓")
        await opened.close()
    }

    @Test("a NULL value goes into a column of any type, in and out of a transaction", arguments: DatabaseKind.available)
    func nullsAndTransactions(database: DatabaseKind) async throws {
        let opened = try await database.open(directory: try Fixtures.scratchDirectory("sql-null-\(database)"))
        _ = try await opened.execute("CREATE TABLE t (id TEXT PRIMARY KEY, n BIGINT, s TEXT)", [])
        _ = try await opened.execute("INSERT INTO t (id, n, s) VALUES ($1, $2, $3)", [.text("a"), .null, .null])
        try await opened.transaction { sql in
            _ = try await sql.execute("INSERT INTO t (id, n, s) VALUES ($1, $2, $3)", [.text("b"), .int(2), .null])
        }
        // A transaction that throws leaves nothing behind.
        struct Undo: Error {}
        await #expect(throws: Undo.self) {
            try await opened.transaction { sql in
                _ = try await sql.execute(
                    "INSERT INTO t (id, n, s) VALUES ($1, $2, $3)", [.text("c"), .int(3), .text("s")])
                throw Undo()
            }
        }
        let rows = try await opened.execute("SELECT id, n, s FROM t ORDER BY id", [])
        #expect(rows.map { $0.text("id") } == ["a", "b"])
        #expect(rows.map { $0.int("n") } == [nil, 2])
        // A broken constraint is the database's error, recognised as one.
        await #expect {
            _ = try await opened.execute("INSERT INTO t (id) VALUES ($1)", [.text("a")])
        } throws: { error in
            (error as? ServiceDatabaseError)?.isUniqueViolation == true
        }
        await opened.close()
    }
}
