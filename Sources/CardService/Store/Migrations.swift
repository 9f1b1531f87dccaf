#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The service's schema, as numbered migrations applied once each, in order, in one
/// transaction per step. `schema_migrations` records what ran; several nodes starting at
/// once take turns (PostgreSQL: an advisory lock; SQLite: its one writer).
enum Migrations {
    /// A statement of a step: the same for both databases, or one for each.
    struct Statement: ExpressibleByStringInterpolation, Sendable {
        let sqlite: String
        let postgres: String

        init(stringLiteral text: String) {
            sqlite = text
            postgres = text
        }

        init(sqlite: String, postgres: String) {
            self.sqlite = sqlite
            self.postgres = postgres
        }

        /// The statement for `dialect`.
        func text(_ dialect: SQLDialect) -> String { dialect == .postgres ? postgres : sqlite }
    }

    /// Version and statements; append, never edit, once released.
    static let steps: [(version: Int, statements: [Statement])] = [
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
        (
            4,
            // A card's life: when it reached each status (queued is `created`), and when a run
            // was handed to the post. The events: one row per state change, written in the
            // transaction that makes the change, numbered in the order they commit (`seq`),
            // each with the card or run as it was then (`state`, JSON).
            ["ready_at", "failed_at", "cancelled_at", "printed_at", "mailed_at"].map {
                Statement(stringLiteral: "ALTER TABLE cards ADD COLUMN \($0) BIGINT")
            } + [
                "ALTER TABLE print_runs ADD COLUMN mailed BIGINT",
                """
                CREATE TABLE events (
                    seq \(serialKey), id TEXT NOT NULL UNIQUE, owner TEXT NOT NULL, type TEXT NOT NULL,
                    subject TEXT NOT NULL, state TEXT NOT NULL, created BIGINT NOT NULL)
                """,
                "CREATE INDEX events_owner ON events (owner, seq)",
            ]
        ),
        (
            5,
            // Webhook endpoints (their secrets kept: each message is signed with them), and
            // one delivery per event and endpoint, written with the event: the outbox.
            [
                """
                CREATE TABLE webhook_endpoints (
                    id TEXT PRIMARY KEY, owner TEXT NOT NULL, url TEXT NOT NULL, types TEXT NOT NULL,
                    description TEXT NOT NULL, secret TEXT NOT NULL, previous_secret TEXT,
                    previous_until BIGINT, failing_since BIGINT, disabled BIGINT, created BIGINT NOT NULL)
                """,
                "CREATE INDEX webhook_endpoints_owner ON webhook_endpoints (owner, created)",
                """
                CREATE TABLE deliveries (
                    event TEXT NOT NULL, endpoint TEXT NOT NULL, seq BIGINT NOT NULL, subject TEXT NOT NULL,
                    status TEXT NOT NULL, attempts BIGINT NOT NULL DEFAULT 0, next_attempt BIGINT NOT NULL,
                    lease_token TEXT, lease_until BIGINT, last_error TEXT, created BIGINT NOT NULL,
                    PRIMARY KEY (event, endpoint))
                """,
                "CREATE INDEX deliveries_due ON deliveries (status, next_attempt)",
                "CREATE INDEX deliveries_subject ON deliveries (endpoint, subject, seq)",
            ]
        ),
        (
            6,
            // A card's life after the post: when it came back (`returned`, scanned) or was
            // delivered; the service's secrets (the one that signs the cards' codes), made
            // once by the first node that needs one.
            ["returned_at", "delivered_at"].map {
                Statement(stringLiteral: "ALTER TABLE cards ADD COLUMN \($0) BIGINT")
            }
                + [
                    "CREATE TABLE service_secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL, created BIGINT NOT NULL)"
                ]
        ),
        (
            7,
            [
                // A card's mail class and postal warnings, decided when it is ordered: its events
                // show them without keeping its spec.
                "ALTER TABLE cards ADD COLUMN mail_class TEXT",
                "ALTER TABLE cards ADD COLUMN warnings TEXT",
                // Each key's events numbered on their own (the cursor of GET /v1/events: a key
                // cannot read the others' volume from it), by a counter that purging old events
                // never sets back.
                "ALTER TABLE events ADD COLUMN owner_seq BIGINT",
                """
                UPDATE events SET owner_seq = numbered.n FROM (
                    SELECT seq AS s, ROW_NUMBER() OVER (PARTITION BY owner ORDER BY seq) AS n FROM events
                ) AS numbered WHERE events.seq = numbered.s
                """,
                "CREATE UNIQUE INDEX events_owner_seq ON events (owner, owner_seq)",
                "CREATE TABLE event_counters (owner TEXT PRIMARY KEY, last BIGINT NOT NULL)",
                "INSERT INTO event_counters (owner, last) SELECT owner, MAX(owner_seq) FROM events GROUP BY owner",
                // Events keep a card's public part only: the specs (messages, addresses) and
                // photos the events written before kept are taken out of them.
                Statement(
                    sqlite: """
                        UPDATE events SET state = json_remove(state, '$.spec', '$.photo', '$.entryKey', '$.owner',
                        '$.printRun') WHERE type LIKE 'card.%'
                        """,
                    postgres: """
                        UPDATE events SET state = (state::jsonb - 'spec' - 'photo' - 'entryKey' - 'owner'
                        - 'printRun')::text WHERE type LIKE 'card.%'
                        """),
                // Old events and finished deliveries are purged by their time (`--keep-events`).
                "CREATE INDEX events_created ON events (created)",
                "CREATE INDEX deliveries_created ON deliveries (created)",
                "CREATE INDEX deliveries_seq ON deliveries (seq)",
                // The claims' walks: an endpoint's pending deliveries in order, whether it has one
                // due, and what is in flight (leased) now; each a few rows, however many wait.
                "CREATE INDEX deliveries_queue ON deliveries (endpoint, seq) WHERE status = 'pending'",
                "CREATE INDEX deliveries_waiting ON deliveries (endpoint, next_attempt) WHERE status = 'pending'",
                "CREATE INDEX deliveries_leased ON deliveries (lease_until) WHERE lease_until IS NOT NULL",
                // When an endpoint was last replayed (replays are rate-limited).
                "ALTER TABLE webhook_endpoints ADD COLUMN replayed BIGINT",
                // When a delivery was delivered or given up (finished ones are purged a day later).
                "ALTER TABLE deliveries ADD COLUMN finished BIGINT",
                "CREATE INDEX deliveries_finished ON deliveries (finished) WHERE finished IS NOT NULL",
            ]
        ),
    ]

    /// Stands in a statement for the database's own auto-numbered key column.
    static let serialKey = "{{serial key}}"

    /// Applies every step not yet applied, up to version `last` (the tests stop before the
    /// newest to check what it does to older rows).
    /// - Returns: the versions applied now.
    static func apply(to database: any ServiceDatabase, through last: Int = .max) async throws -> [Int] {
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
            for step in steps where !done.contains(step.version) && step.version <= last {
                for statement in step.statements {
                    _ = try await sql.execute(
                        statement.text(database.dialect).replacing(serialKey, with: database.dialect.serialKey), [])
                }
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
        Int((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// `milliseconds` since 1970 as RFC 3339 in UTC with milliseconds
    /// (`2026-11-27T10:00:00.123Z`), as the API and the events write times.
    static func rfc3339(_ milliseconds: Int) -> String {
        var seconds = time_t(milliseconds.quotient(by: 1000))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = milliseconds.remainder(by: 1000)
        let fraction = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):"
            + "\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }
}

extension Int {
    /// The quotient rounded down (towards minus infinity), so times before 1970 stay in order.
    fileprivate func quotient(by divisor: Int) -> Int {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }

    /// The remainder matching `quotient(by:)`: from 0 up to `divisor`.
    fileprivate func remainder(by divisor: Int) -> Int {
        let remainder = self % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}

#if canImport(Glibc)
    import Glibc
#endif
