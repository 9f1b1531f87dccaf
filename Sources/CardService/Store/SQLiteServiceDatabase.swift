import Logging
import NIOCore
import SQLKit
import SQLiteKit
import SQLiteNIO

/// The embedded database (`--data DIR`): one SQLite file in write-ahead-log mode, one
/// connection (SQLiteNIO's, run through sql-kit), and one statement or transaction at a time
/// (`AsyncPermits` with one permit): SQLite has one writer anyway, and a connection's `BEGIN`
/// belongs to the whole connection.
public final class SQLiteServiceDatabase: ServiceDatabase {
    public var dialect: SQLDialect { .sqlite }
    private let connection: SQLiteConnection
    private let database: any SQLDatabase
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
        // Statements are logged by the service, not by sql-kit.
        database = connection.sql(queryLogLevel: nil)
        do {
            // Durable on commit (FULL in WAL mode), readers never wait for the writer.
            for pragma in ["journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON"] {
                try await database.raw("PRAGMA \(unsafeRaw: pragma)").run()
            }
        } catch {
            try? await connection.close()
            throw ServiceDatabaseError(reason: "\(path) cannot be used (\(error))", code: nil)
        }
    }

    public func execute(_ sql: String, _ binds: [SQLValue]) async throws -> [ResultRow] {
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
        func execute(_ sql: String, _ binds: [SQLValue]) async throws -> [ResultRow] {
            try await database.run(sql, binds)
        }
    }

    private func run(_ sql: String, _ binds: [SQLValue]) async throws -> [ResultRow] {
        do {
            return try await database.rows(sql, binds)
        } catch let error as SQLiteError {
            throw ServiceDatabaseError(reason: error.message, code: "\(error.reason)")
        } catch {
            throw ServiceDatabaseError(reason: "\(error)", code: nil)
        }
    }
}
