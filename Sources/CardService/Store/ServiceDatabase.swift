/// Runs SQL: a database, or a connection inside one of its transactions.
///
/// The service's SQL is written once, for both databases: placeholders `$1`, `$2`, ...
/// (sent in each database's own form by `SQLStatement`, through sql-kit), portable types
/// (TEXT, BIGINT), `RETURNING`, and `ON CONFLICT DO NOTHING`.
public protocol SQLExecutor: Sendable {
    /// Runs `sql` with `binds` for `$1`, `$2`, ... and returns its rows.
    /// - Throws: `ServiceDatabaseError` naming the database's reason.
    func execute(_ sql: String, _ binds: [SQLValue]) async throws -> [ResultRow]
}

/// The service's database: SQLite (`--data DIR`, one process) or PostgreSQL
/// (`--database postgres://…`, shared by every node).
public protocol ServiceDatabase: SQLExecutor {
    /// Which one it is.
    var dialect: SQLDialect { get }
    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    func transaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// Closes the connections.
    func close() async
}

/// What differs between the two databases' SQL.
public enum SQLDialect: String, Sendable {
    case sqlite, postgres

    /// The lock clause that lets several nodes claim queued rows at once without waiting for
    /// each other (PostgreSQL); SQLite has one writer at a time and needs none.
    var skipLocked: String { self == .postgres ? " FOR UPDATE SKIP LOCKED" : "" }

    /// The database's clock in milliseconds since 1970: leases are compared on one clock,
    /// never on each node's own.
    var now: String {
        switch self {
        case .postgres: "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"
        case .sqlite: "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
        }
    }
}

/// A database that refused a statement or could not be reached.
public struct ServiceDatabaseError: Error, CustomStringConvertible, Sendable {
    /// What the database said.
    public let reason: String
    /// The SQLSTATE (PostgreSQL) or result code (SQLite), when known.
    public let code: String?

    public var description: String { "the database: \(reason)" }

    /// Whether the statement broke a unique constraint (another writer got there first).
    var isUniqueViolation: Bool {
        code == "23505" || reason.contains("UNIQUE constraint failed")
    }
}
