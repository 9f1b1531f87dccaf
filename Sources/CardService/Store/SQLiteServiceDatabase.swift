import Logging
import NIOCore
import SQLiteNIO

/// The embedded database (`--data DIR`): one SQLite file in write-ahead-log mode, one
/// connection, and one statement or transaction at a time (`AsyncPermits` with one permit): SQLite has
/// one writer anyway, and a connection's `BEGIN` belongs to the whole connection.
public final class SQLiteServiceDatabase: ServiceDatabase {
    public var dialect: SQLDialect { .sqlite }
    private let connection: SQLiteConnection
    private let lock = AsyncPermits()

    /// Opens (creating if needed) the database file at `path`.
    /// - Throws: `ServiceDatabaseError` naming the file.
    public init(path: String) async throws {
        do {
            connection = try await SQLiteConnection.open(
                storage: .file(path: path), logger: Logger(label: "cardrender.sqlite"))
        } catch {
            throw ServiceDatabaseError(reason: "\(path) cannot be opened (\(error))", code: nil)
        }
        do {
            // Durable on commit (FULL in WAL mode), readers never wait for the writer.
            _ = try await connection.query("PRAGMA journal_mode=WAL", [])
            _ = try await connection.query("PRAGMA synchronous=FULL", [])
            _ = try await connection.query("PRAGMA foreign_keys=ON", [])
        } catch {
            try? await connection.close()
            throw ServiceDatabaseError(reason: "\(path) cannot be used (\(error))", code: nil)
        }
    }

    public func execute(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await lock.run { try await self.run(sql, binds) }
    }

    public func transaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await lock.run {
            // IMMEDIATE: the write lock is taken at BEGIN, so two processes (the server and
            // `cardrender keys`) never deadlock upgrading a read.
            _ = try await self.run("BEGIN IMMEDIATE", [])
            do {
                let result = try await body(InTransaction(database: self))
                _ = try await self.run("COMMIT", [])
                return result
            } catch {
                _ = try? await self.run("ROLLBACK", [])
                throw error
            }
        }
    }

    public func close() async {
        try? await connection.close()
    }

    /// A statement inside the transaction that holds the lock.
    private struct InTransaction: SQLExecutor {
        let database: SQLiteServiceDatabase
        func execute(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
            try await database.run(sql, binds)
        }
    }

    private func run(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        let values: [SQLiteData] = binds.map {
            switch $0 {
            case .int(let value): .integer(value)
            case .text(let value): .text(value)
            case .null: .null
            }
        }
        let rows: [SQLiteRow]
        do {
            rows = try await connection.query(Self.sqlitePlaceholders(sql), values)
        } catch let error as SQLiteError {
            throw ServiceDatabaseError(reason: error.message, code: "\(error.reason)")
        } catch {
            throw ServiceDatabaseError(reason: "\(error)", code: nil)
        }
        return rows.map { row in
            var columns: [String: SQLValue] = [:]
            for column in row.columns {
                switch column.data {
                case .integer(let value): columns[column.name] = .int(Int(value))
                case .text(let value): columns[column.name] = .text(value)
                case .float(let value): columns[column.name] = .int(Int(value))
                case .blob, .null: columns[column.name] = .null
                }
            }
            return SQLRow(columns: columns)
        }
    }

    /// `$1` becomes `?1`: SQLite numbers `$NAME` parameters by first appearance, `?N` by N.
    static func sqlitePlaceholders(_ sql: String) -> String {
        var out = ""
        var quoted = false
        for character in sql {
            if character == "'" { quoted.toggle() }
            out.append(character == "$" && !quoted ? "?" : character)
        }
        return out
    }
}
