extension OrderBook {
    // MARK: Webhook endpoints

    /// Adds an endpoint for `owner`.
    func addEndpoint(_ endpoint: WebhookEndpointRecord) async throws {
        _ = try await database.execute(
            """
            INSERT INTO webhook_endpoints (id, owner, url, types, description, secret, created)
            VALUES ($1, $2, $3, $4, $5, $6, $7)
            """,
            [
                .text(endpoint.id), .text(endpoint.owner), .text(endpoint.url),
                .text(WebhookEndpointRecord.column(endpoint.types)), .text(endpoint.description),
                .text(endpoint.secret), .int(endpoint.created),
            ])
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

    /// Sends `owner`'s events since `since` (milliseconds since 1970) to endpoint `id` again,
    /// those of the types it receives; an endpoint disabled for failing is enabled again.
    /// - Returns: how many events are to be sent, or nil when there is no such endpoint.
    func replay(owner: String, id: String, since: Int) async throws -> Int? {
        let dialect = database.dialect
        return try await database.transaction { sql in
            guard
                let endpoint = try await sql.execute(
                    "SELECT \(WebhookEndpointRecord.columns) FROM webhook_endpoints WHERE id = $1 AND owner = $2",
                    [.text(id), .text(owner)]
                ).first.flatMap(WebhookEndpointRecord.init(row:))
            else { return nil }
            let now = ServiceClock.milliseconds()
            let types = WebhookEndpointRecord.column(endpoint.types)
            // Due at once (0: whatever the database's clock says); a delivery in flight (its
            // lease held) is left to finish, so no event is ever sent twice at the same time.
            let queued = try await sql.execute(
                """
                INSERT INTO deliveries (event, endpoint, seq, subject, status, next_attempt, created)
                SELECT id, $1, seq, subject, 'pending', 0, $2 FROM events
                WHERE owner = $3 AND created >= $4 AND ($5 = '*' OR $5 LIKE '%,' || type || ',%')
                ON CONFLICT (event, endpoint) DO UPDATE SET status = 'pending', attempts = 0,
                next_attempt = 0, lease_token = NULL, lease_until = NULL, last_error = NULL
                WHERE deliveries.lease_token IS NULL OR deliveries.lease_until < \(dialect.now)
                RETURNING event
                """, [.text(id), .int(now), .text(owner), .int(since), .text(types)])
            // The endpoint last: its row is locked after the deliveries', as the senders lock them.
            _ = try await sql.execute(
                "UPDATE webhook_endpoints SET disabled = NULL, failing_since = NULL WHERE id = $1", [.text(id)])
            return queued.count
        }
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

    /// Claims up to `limit` deliveries due now, oldest event first, each for `lease`
    /// milliseconds of the database's clock. A delivery is due only when no earlier event of
    /// the same card (or run) is still to be sent to the same endpoint, so an endpoint hears a
    /// card's events in the order the card lived them, and one delivery of an event is in
    /// flight at a time (its lease).
    func claimDeliveries(limit: Int, leaseMilliseconds lease: Int, node: String) async throws -> [Delivery] {
        let token = node + "/" + Self.randomHex(16)
        let dialect = database.dialect
        return try await database.transaction { sql in
            guard let now = try await sql.execute("SELECT \(dialect.now) AS now", []).first?.int("now") else {
                throw ServiceDatabaseError(reason: "the database gave no time", code: nil)
            }
            let due = try await sql.execute(
                """
                SELECT d.event, d.endpoint, d.attempts FROM deliveries d
                WHERE d.status = 'pending' AND d.next_attempt <= $1 AND (d.lease_until IS NULL OR d.lease_until < $1)
                AND NOT EXISTS (SELECT 1 FROM deliveries e WHERE e.endpoint = d.endpoint AND e.subject = d.subject
                    AND e.status = 'pending' AND e.seq < d.seq)
                AND EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.id = d.endpoint AND w.disabled IS NULL)
                ORDER BY d.seq LIMIT $2\(dialect.skipLocked)
                """, [.int(now), .int(limit)])
            var claimed: [Delivery] = []
            for row in due {
                guard let eventID = row.text("event"), let endpointID = row.text("endpoint") else { continue }
                _ = try await sql.execute(
                    """
                    UPDATE deliveries SET lease_token = $3, lease_until = $4, attempts = attempts + 1
                    WHERE event = $1 AND endpoint = $2
                    """, [.text(eventID), .text(endpointID), .text(token), .int(now + lease)])
                guard
                    let event = try await sql.execute(
                        "SELECT \(EventRecord.columns) FROM events WHERE id = $1",
                        [.text(eventID)]
                    ).first.flatMap(Self.event(row:)),
                    let endpoint = try await sql.execute(
                        "SELECT \(WebhookEndpointRecord.columns) FROM webhook_endpoints WHERE id = $1",
                        [.text(endpointID)]
                    ).first.flatMap(WebhookEndpointRecord.init(row:))
                else { continue }
                claimed.append(
                    Delivery(event: event, endpoint: endpoint, token: token, attempts: row.int("attempts") ?? 0))
            }
            return claimed
        }
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
                    UPDATE deliveries SET status = 'delivered', lease_token = NULL, last_error = NULL
                    WHERE event = $1 AND endpoint = $2 AND lease_token = $3
                    """, [.text(delivery.event.id), .text(delivery.endpoint.id), .text(delivery.token)])
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
                lease_until = NULL, last_error = $6 WHERE event = $1 AND endpoint = $2 AND lease_token = $3
                RETURNING event
                """,
                [
                    .text(delivery.event.id), .text(delivery.endpoint.id), .text(delivery.token),
                    .text(retryAfter == nil ? "failed" : "pending"), .int(retryAfter ?? 0),
                    .text(String(error.prefix(500))),
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
