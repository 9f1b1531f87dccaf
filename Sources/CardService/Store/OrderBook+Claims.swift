extension OrderBook {
    // MARK: Claiming deliveries

    /// Claims up to `limit` deliveries due now, each for `lease` milliseconds of the database's
    /// clock, shared fairly: the keys with due deliveries take turns (starting at the one
    /// `rotation` points to, so that each pass begins with another), each key given its part of
    /// `limit` first, and within a key its endpoints likewise; a key never has more than
    /// `perOwner` attempts in flight over every node, an endpoint never more than `perEndpoint`
    /// (in flight: leased and not yet recorded; on PostgreSQL claims take turns under a
    /// transaction-scoped lock, so two nodes never count the same free places). A delivery is
    /// due only when no earlier event of the same card (or run) is still to be sent to the same
    /// endpoint, so an endpoint hears a card's events in the order the card lived them, and one
    /// delivery of an event is in flight at a time (its lease).
    ///
    /// Every read walks an index from where the answer starts (migration 7's partial indexes;
    /// `SQLDialect.unindexed` keeps SQLite's planner off the index that would make it sort):
    /// what is in flight, the endpoints with something due (one probe each), then each chosen
    /// endpoint's first due deliveries in order, so a pass costs what it claims, not what
    /// waits (a query ranking every due delivery took 22 ms on 10,000 and held the outbox's
    /// drain to 200 a second). Each endpoint's chosen deliveries are leased by one update that
    /// checks they are still free.
    func claimDeliveries(
        limit: Int, perOwner: Int, perEndpoint: Int, leaseMilliseconds lease: Int, node: String, rotation: Int = 0
    ) async throws -> [Delivery] {
        let token = node + "/" + Self.randomHex(16)
        let dialect = database.dialect
        return try await database.transaction { sql in
            if dialect == .postgres {
                // One claim at a time over every node (a few milliseconds each): the counts of
                // what is in flight hold until the claim's leases are written.
                _ = try await sql.execute("SELECT pg_advisory_xact_lock(7213004)", [])
            }
            guard let now = try await sql.execute("SELECT \(dialect.now) AS now", []).first?.int("now") else {
                throw ServiceDatabaseError(reason: "the database gave no time", code: nil)
            }
            // In flight now, on every node.
            var owners: [String: Int] = [:]
            var endpoints: [String: Int] = [:]
            for row in try await sql.execute(
                """
                SELECT w.owner, d.endpoint, COUNT(*) AS n FROM deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint
                WHERE d.lease_until >= $1 AND \(dialect.unindexed("d.status")) = 'pending' GROUP BY w.owner, d.endpoint
                """, [.int(now)])
            {
                guard let owner = row.text("owner"), let endpoint = row.text("endpoint") else { continue }
                owners[owner, default: 0] += row.int("n") ?? 0
                endpoints[endpoint, default: 0] += row.int("n") ?? 0
            }
            // The enabled endpoints with something due, by key.
            var due: [String: [WebhookEndpointRecord]] = [:]
            for row in try await sql.execute(
                """
                SELECT \(WebhookEndpointRecord.columns) FROM webhook_endpoints w WHERE w.disabled IS NULL
                AND EXISTS (SELECT 1 FROM deliveries d WHERE d.endpoint = w.id AND d.status = 'pending'
                    AND d.next_attempt <= $1 AND (d.lease_until IS NULL OR d.lease_until < $1))
                ORDER BY w.owner, w.id
                """, [.int(now)])
            {
                guard let endpoint = WebhookEndpointRecord(row: row),
                    owners[endpoint.owner, default: 0] < perOwner, endpoints[endpoint.id, default: 0] < perEndpoint
                else { continue }
                due[endpoint.owner, default: []].append(endpoint)
            }
            let keys = due.keys.sorted()
            guard !keys.isEmpty else { return [] }
            let start = rotation % keys.count
            let turns = Array(keys[start...] + keys[..<start])
            var claimed: [Delivery] = []
            // Each key its part first, then what is left, in the same turns; within a key, its
            // endpoints likewise (their start turning too).
            for part in [max(1, (limit + turns.count - 1) / turns.count), limit] {
                for owner in turns {
                    let quota = min(part, perOwner - owners[owner, default: 0], limit - claimed.count)
                    guard quota > 0, let mine = due[owner], !mine.isEmpty else { continue }
                    let first = rotation % mine.count
                    let order = Array(mine[first...] + mine[..<first])
                    var left = quota
                    for share in [max(1, (quota + order.count - 1) / order.count), quota] {
                        for endpoint in order where left > 0 {
                            let room = min(share, left, perEndpoint - endpoints[endpoint.id, default: 0])
                            guard room > 0 else { continue }
                            let leased = try await Self.lease(
                                endpoint, upTo: room, now: now, until: now + lease, token: token, in: sql,
                                dialect: dialect)
                            endpoints[endpoint.id, default: 0] += leased.count
                            owners[owner, default: 0] += leased.count
                            left -= leased.count
                            claimed += leased
                        }
                    }
                }
                if claimed.count >= limit { break }
            }
            return claimed
        }
    }

    /// Leases up to `count` of `endpoint`'s first due deliveries (in their events' order,
    /// none behind an earlier pending event of its card) under `token`.
    private static func lease(
        _ endpoint: WebhookEndpointRecord, upTo count: Int, now: Int, until: Int, token: String,
        in sql: any SQLExecutor, dialect: SQLDialect
    ) async throws -> [Delivery] {
        let rows = try await sql.execute(
            """
            SELECT d.attempts, \(EventRecord.columns(of: "e"))
            FROM deliveries d JOIN events e ON e.id = d.event
            WHERE d.endpoint = $1 AND d.status = 'pending' AND \(dialect.unindexed("d.next_attempt")) <= $2
            AND (d.lease_until IS NULL OR d.lease_until < $2)
            AND NOT EXISTS (SELECT 1 FROM deliveries b WHERE b.endpoint = d.endpoint AND b.subject = d.subject
                AND b.status = 'pending' AND b.seq < d.seq)
            ORDER BY d.seq LIMIT $3
            """, [.text(endpoint.id), .int(now), .int(count)])
        var chosen: [(EventRecord, attempts: Int)] = []
        for row in rows {
            guard let event = event(row: row) else { continue }
            chosen.append((event, row.int("attempts") ?? 0))
        }
        guard !chosen.isEmpty else { return [] }
        // One update for all of them, each only if still free (another node may have leased it).
        let list = chosen.indices.map { "$\($0 + 5)" }.joined(separator: ", ")
        let leased = Set(
            try await sql.execute(
                """
                UPDATE deliveries SET lease_token = $2, lease_until = $3, attempts = attempts + 1
                WHERE endpoint = $1 AND status = 'pending' AND (lease_until IS NULL OR lease_until < $4)
                AND event IN (\(list)) RETURNING event
                """,
                [.text(endpoint.id), .text(token), .int(until), .int(now)] + chosen.map { .text($0.0.id) }
            ).compactMap { $0.text("event") })
        return chosen.filter { leased.contains($0.0.id) }.map {
            Delivery(event: $0.0, endpoint: endpoint, token: token, attempts: $0.attempts)
        }
    }
}
