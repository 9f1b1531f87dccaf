/// The service's schema, as numbered migrations applied once each, in order, in one
/// transaction per step. `schema_migrations` records what ran; several nodes starting at
/// once take turns (PostgreSQL: an advisory lock; SQLite: its one writer).
enum Migrations {
    /// Version and statements; append, never edit, once released.
    static let steps: [(version: Int, statements: [String])] = [
        (
            1,
            [
                """
                CREATE TABLE api_keys (
                    id TEXT PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, created BIGINT NOT NULL)
                """,
                """
                CREATE TABLE photos (
                    owner TEXT NOT NULL, digest TEXT NOT NULL, width BIGINT NOT NULL, height BIGINT NOT NULL,
                    format TEXT NOT NULL, created BIGINT NOT NULL, PRIMARY KEY (owner, digest))
                """,
                """
                CREATE TABLE orders (
                    owner TEXT NOT NULL, idempotency_key TEXT NOT NULL, body_digest TEXT NOT NULL,
                    answer TEXT NOT NULL, created BIGINT NOT NULL, PRIMARY KEY (owner, idempotency_key))
                """,
                """
                CREATE TABLE cards (
                    id TEXT PRIMARY KEY, owner TEXT NOT NULL, photo TEXT NOT NULL, spec TEXT NOT NULL,
                    press TEXT NOT NULL, recipient BIGINT, status TEXT NOT NULL, verdict TEXT, error TEXT,
                    entry_key TEXT, lease_token TEXT, lease_until BIGINT, attempts BIGINT NOT NULL DEFAULT 0,
                    readied BIGINT NOT NULL DEFAULT 0, print_run TEXT, created BIGINT NOT NULL,
                    updated BIGINT NOT NULL)
                """,
                "CREATE INDEX cards_queue ON cards (status, created)",
                "CREATE INDEX cards_owner ON cards (owner, created, id)",
                """
                CREATE TABLE print_runs (
                    id TEXT PRIMARY KEY, owner TEXT NOT NULL, press TEXT NOT NULL, sheet TEXT NOT NULL,
                    cards TEXT NOT NULL, sheets TEXT NOT NULL, created BIGINT NOT NULL)
                """,
            ]
        ),
        (
            2,
            [
                // A run's deposit manifest: the content store key of its JSON and CSV (NULL for
                // the runs recorded before).
                "ALTER TABLE print_runs ADD COLUMN manifest TEXT"
            ]
        ),
        (
            3,
            [
                // When a key was revoked (NULL: in use) and last rotated (`cardrender keys`).
                "ALTER TABLE api_keys ADD COLUMN revoked BIGINT",
                "ALTER TABLE api_keys ADD COLUMN rotated BIGINT",
            ]
        ),
    ]

    /// Applies every step not yet applied.
    /// - Returns: the versions applied now.
    static func apply(to database: any ServiceDatabase) async throws -> [Int] {
        try await database.transaction { sql in
            if database.dialect == .postgres {
                // One node migrates; the others wait here, then find nothing left to do.
                _ = try await sql.execute("SELECT pg_advisory_xact_lock(7213001)", [])
            }
            _ = try await sql.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied BIGINT NOT NULL)",
                [])
            let done = Set(
                try await sql.execute("SELECT version FROM schema_migrations", []).compactMap { $0.int("version") })
            var applied: [Int] = []
            for step in steps where !done.contains(step.version) {
                for statement in step.statements { _ = try await sql.execute(statement, []) }
                _ = try await sql.execute(
                    "INSERT INTO schema_migrations (version, applied) VALUES ($1, $2)",
                    [.int(step.version), .int(ServiceClock.milliseconds())])
                applied.append(step.version)
            }
            return applied
        }
    }
}

/// Wall-clock milliseconds since 1970: the times the tables keep (leases, order).
enum ServiceClock {
    static func milliseconds() -> Int {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return spec.tv_sec * 1000 + spec.tv_nsec / 1_000_000
    }
}

#if canImport(Glibc)
    import Glibc
#endif
