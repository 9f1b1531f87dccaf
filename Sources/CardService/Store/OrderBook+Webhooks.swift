extension OrderBook {
    // MARK: Webhook endpoints

    /// Adds an endpoint for `owner`, unless the key has `limit` endpoints already.
    /// - Returns: false when the key is at its limit (nothing added).
    func addEndpoint(_ endpoint: WebhookEndpointRecord, limit: Int) async throws -> Bool {
        let dialect = database.dialect
        return try await database.transaction { sql in
            if dialect == .postgres {
                // The key's endpoints counted and added one key at a time (two made at the same
                // instant cannot both pass the limit).
                _ = try await sql.execute(
                    "SELECT pg_advisory_xact_lock(7213003, hashtext($1))", [.text(endpoint.owner)])
            }
            let count =
                try await sql.execute(
                    "SELECT COUNT(*) AS n FROM webhook_endpoints WHERE owner = $1", [.text(endpoint.owner)]
                ).first?.int("n") ?? 0
            guard count < limit else { return false }
            _ = try await sql.execute(
                """
                INSERT INTO webhook_endpoints (id, owner, url, types, description, secret, created)
                VALUES ($1, $2, $3, $4, $5, $6, $7)
                """,
                [
                    .text(endpoint.id), .text(endpoint.owner), .text(endpoint.url),
                    .text(WebhookEndpointRecord.column(endpoint.types)), .text(endpoint.description),
                    .text(endpoint.secret), .int(endpoint.created),
                ])
            return true
        }
    }

    /// `owner`'s endpoints, oldest first.
    func endpoints(owner: String) async throws -> [WebhookEndpointRecord] {
        try await database.execute(
            "SELECT \(WebhookEndpointRecord.columns) FROM webhook_endpoints WHERE owner = $1 ORDER BY created, id",
            [.text(owner)]
        ).compactMap(WebhookEndpointRecord.init(row:))
    }

    /// `owner`'s endpoint `id`, or nil.
    func endpoint(owner: String, id: String) async throws -> WebhookEndpointRecord? {
        try await database.execute(
            "SELECT \(WebhookEndpointRecord.columns) FROM webhook_endpoints WHERE id = $1 AND owner = $2",
            [.text(id), .text(owner)]
        ).first.flatMap(WebhookEndpointRecord.init(row:))
    }

    /// Deletes `owner`'s endpoint `id` and what was still to be sent to it.
    /// - Returns: false when there is no such endpoint.
    func deleteEndpoint(owner: String, id: String) async throws -> Bool {
        try await database.transaction { sql in
            let deleted = try await sql.execute(
                "DELETE FROM webhook_endpoints WHERE id = $1 AND owner = $2 RETURNING id", [.text(id), .text(owner)])
            guard !deleted.isEmpty else { return false }
            _ = try await sql.execute("DELETE FROM deliveries WHERE endpoint = $1", [.text(id)])
            return true
        }
    }

    /// Gives `owner`'s endpoint `id` the secret `secret`; the one it replaces keeps signing
    /// beside it for `overlap` milliseconds (one previous secret at a time: a second rotation
    /// within that time retires the first secret at once).
    /// - Returns: the endpoint, or nil when there is none.
    func rotateSecret(owner: String, id: String, secret: String, overlap: Int) async throws -> WebhookEndpointRecord? {
        let now = ServiceClock.milliseconds()
        return try await database.execute(
            """
            UPDATE webhook_endpoints SET previous_secret = secret, previous_until = $3, secret = $4
            WHERE id = $1 AND owner = $2 RETURNING \(WebhookEndpointRecord.columns)
            """, [.text(id), .text(owner), .int(now + overlap), .text(secret)]
        ).first.flatMap(WebhookEndpointRecord.init(row:))
    }

    /// What a replay came to.
    enum Replayed: Sendable, Equatable {
        /// The events to be sent.
        case queued(Int)
        /// No endpoint of the key has this id.
        case notFound
        /// The endpoint was replayed less than the allowed interval ago: the seconds to wait.
        case tooSoon(Int)
    }

    /// Sends `owner`'s events since `since` (milliseconds since 1970) to endpoint `id` again,
    /// those of the types it receives; an endpoint disabled for failing is enabled again. A
    /// delivery still pending keeps its attempts and its wait (a replay never hurries a
    /// failing endpoint); a delivered or given-up one is sent again. At most once every
    /// `every` milliseconds per endpoint.
    func replay(owner: String, id: String, since: Int, every: Int) async throws -> Replayed {
        try await database.transaction { sql in
            guard
                let endpoint = try await sql.execute(
                    "SELECT \(WebhookEndpointRecord.columns) FROM webhook_endpoints WHERE id = $1 AND owner = $2",
                    [.text(id), .text(owner)]
                ).first.flatMap(WebhookEndpointRecord.init(row:))
            else { return .notFound }
            let now = ServiceClock.milliseconds()
            if let last = endpoint.replayed, now - last < every {
                return .tooSoon(max(1, (every - (now - last) + 999) / 1000))
            }
            let types = WebhookEndpointRecord.column(endpoint.types)
            // Due at once (0: whatever the database's clock says); a delivery still pending is
            // left as it is (its lease, attempts and wait), so no event is ever sent twice at
            // the same time and a failing endpoint keeps its back-off.
            let queued = try await sql.execute(
                """
                INSERT INTO deliveries (event, endpoint, seq, subject, status, next_attempt, created)
                SELECT id, $1, seq, subject, 'pending', 0, $2 FROM events
                WHERE owner = $3 AND created >= $4 AND ($5 = '*' OR $5 LIKE '%,' || type || ',%')
                ON CONFLICT (event, endpoint) DO UPDATE SET status = 'pending', attempts = 0,
                next_attempt = 0, lease_token = NULL, lease_until = NULL, last_error = NULL, created = $2, finished = NULL
                WHERE deliveries.status <> 'pending'
                RETURNING event
                """, [.text(id), .int(now), .text(owner), .int(since), .text(types)])
            // The endpoint last: its row is locked after the deliveries', as the senders lock them.
            _ = try await sql.execute(
                "UPDATE webhook_endpoints SET disabled = NULL, failing_since = NULL, replayed = $2 WHERE id = $1",
                [.text(id), .int(now)])
            return .queued(queued.count)
        }
    }

    /// Disables every endpoint of `owner` now (its key is being revoked, in the transaction
    /// `sql`), dropping what was still to be sent to them.
    /// - Returns: the endpoints disabled.
    @discardableResult
    static func disableEndpoints(owner: String, in sql: any SQLExecutor) async throws -> [String] {
        _ = try await sql.execute(
            """
            DELETE FROM deliveries WHERE status = 'pending'
            AND endpoint IN (SELECT id FROM webhook_endpoints WHERE owner = $1)
            """, [.text(owner)])
        return try await sql.execute(
            "UPDATE webhook_endpoints SET disabled = $2 WHERE owner = $1 AND disabled IS NULL RETURNING id",
            [.text(owner), .int(ServiceClock.milliseconds())]
        ).compactMap { $0.text("id") }
    }

    /// Which of `ids` are endpoints that still exist and are enabled (the attempts in flight
    /// to the others are cancelled).
    func enabledEndpoints(_ ids: Set<String>) async throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        let sorted = ids.sorted()
        let list = sorted.indices.map { "$\($0 + 1)" }.joined(separator: ", ")
        return Set(
            try await database.execute(
                "SELECT id FROM webhook_endpoints WHERE disabled IS NULL AND id IN (\(list))", sorted.map { .text($0) }
            ).compactMap { $0.text("id") })
    }

    // MARK: Deliveries

    /// A delivery claimed for sending: the event, the endpoint and the lease's token.
    struct Delivery: Sendable {
        let event: EventRecord
        let endpoint: WebhookEndpointRecord
        let token: String
        /// Attempts made before this one.
        let attempts: Int
    }

    /// Frees the deliveries `node` was sending when it stopped: a node that starts again under
    /// the same `--node-name` sends them at once, without waiting for their leases to run out.
    /// - Returns: how many were freed.
    @discardableResult
    func recoverDeliveries(node: String) async throws -> Int {
        // Deliveries written for an endpoint deleted at the same moment are dropped too.
        _ = try await database.execute(
            """
            DELETE FROM deliveries WHERE status = 'pending'
            AND NOT EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.id = deliveries.endpoint)
            """, [])
        // On SQLite (one node) every delivery left leased is this node's, whatever its name was.
        let mine = database.dialect == .sqlite ? "lease_token IS NOT NULL" : "substr(lease_token, 1, length($1)) = $1"
        return try await database.execute(
            """
            UPDATE deliveries SET lease_token = NULL, lease_until = NULL
            WHERE status = 'pending' AND \(mine) RETURNING event
            """, database.dialect == .sqlite ? [] : [.text(node + "/")]
        ).count
    }

    /// Gives a delivery back without counting its attempt (this node is stopping).
    func release(_ delivery: Delivery) async throws {
        _ = try await database.execute(
            """
            UPDATE deliveries SET lease_token = NULL, lease_until = NULL, attempts = attempts - 1
            WHERE event = $1 AND endpoint = $2 AND lease_token = $3
            """, [.text(delivery.event.id), .text(delivery.endpoint.id), .text(delivery.token)])
    }

    /// Records that `deliveries` were received, in one transaction: they are done, and their
    /// endpoints no longer failing.
    func delivered(_ deliveries: [Delivery]) async throws {
        guard !deliveries.isEmpty else { return }
        try await database.transaction { sql in
            for delivery in deliveries {
                _ = try await sql.execute(
                    """
                    UPDATE deliveries SET status = 'delivered', lease_token = NULL, last_error = NULL, finished = $4
                    WHERE event = $1 AND endpoint = $2 AND lease_token = $3
                    """,
                    [
                        .text(delivery.event.id), .text(delivery.endpoint.id), .text(delivery.token),
                        .int(ServiceClock.milliseconds()),
                    ])
            }
            // In one order on every node, so two nodes' transactions never wait on each other.
            for endpoint in Set(deliveries.map(\.endpoint.id)).sorted() {
                _ = try await sql.execute(
                    "UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL",
                    [.text(endpoint)])
            }
        }
    }

    /// Records that `delivery` failed with `error`: tried again after `retryAfter`
    /// milliseconds, or given up when that is nil. An endpoint failing for longer than
    /// `disableAfter` milliseconds is disabled, with its event.
    /// - Returns: the endpoint when it was disabled now.
    @discardableResult
    func failed(_ delivery: Delivery, error: String, retryAfter: Int?, disableAfter: Int) async throws
        -> WebhookEndpointRecord?
    {
        let dialect = database.dialect
        return try await database.transaction { sql in
            let now = ServiceClock.milliseconds()
            // On the database's clock, as the claims compare it. A lease no longer this node's
            // (taken over) records nothing.
            let recorded = try await sql.execute(
                """
                UPDATE deliveries SET status = $4, next_attempt = \(dialect.now) + $5, lease_token = NULL,
                lease_until = NULL, last_error = $6, finished = CASE WHEN $4 = 'failed' THEN $7 ELSE NULL END
                WHERE event = $1 AND endpoint = $2 AND lease_token = $3 RETURNING event
                """,
                [
                    .text(delivery.event.id), .text(delivery.endpoint.id), .text(delivery.token),
                    .text(retryAfter == nil ? "failed" : "pending"), .int(retryAfter ?? 0),
                    .text(String(error.prefix(500))), .int(now),
                ])
            guard !recorded.isEmpty else { return nil }
            _ = try await sql.execute(
                "UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1 AND failing_since IS NULL",
                [.text(delivery.endpoint.id), .int(now)])
            guard
                let disabled = try await sql.execute(
                    """
                    UPDATE webhook_endpoints SET disabled = $2
                    WHERE id = $1 AND disabled IS NULL AND failing_since <= $3
                    RETURNING \(WebhookEndpointRecord.columns)
                    """, [.text(delivery.endpoint.id), .int(now), .int(now - disableAfter)]
                ).first.flatMap(WebhookEndpointRecord.init(row:))
            else { return nil }
            try await Self.write([.disabled(disabled)], in: sql, dialect: dialect)
            return disabled
        }
    }

    /// The pending deliveries (for the metrics and the tests).
    func pendingDeliveries() async throws -> Int {
        try await database.execute(
            """
            SELECT COUNT(*) AS n FROM deliveries d WHERE d.status = 'pending'
            AND EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.id = d.endpoint)
            """, []
        ).first?.int("n") ?? 0
    }

    /// An event from a row of `events`.
    static func event(row: ResultRow) -> EventRecord? {
        guard let seq = row.int("seq"), let ownerSeq = row.int("owner_seq"), let id = row.text("id"),
            let owner = row.text("owner"),
            let kind = row.text("type").flatMap(EventRecord.Kind.init(rawValue:)),
            let subject = row.text("subject"), let state = row.text("state"), let created = row.int("created")
        else { return nil }
        return EventRecord(
            seq: seq, ownerSeq: ownerSeq, id: id, owner: owner, kind: kind, subject: subject, state: state,
            created: created)
    }
}
