extension OrderBook {
    // MARK: Events

    /// Writes `events` in the transaction `sql`, after its other statements. On PostgreSQL a
    /// transaction-scoped lock makes the transactions that write events commit one at a time,
    /// so the events' numbers are also the order they became visible in: a reader that has
    /// seen number N never sees an event numbered below N appear later. (SQLite has one
    /// writer.) Written last, so no transaction waits for a card's row while holding it.
    static func write(_ events: [EventRecord.New], in sql: any SQLExecutor, dialect: SQLDialect) async throws {
        guard !events.isEmpty else { return }
        if dialect == .postgres {
            _ = try await sql.execute("SELECT pg_advisory_xact_lock(7213002)", [])
        }
        let now = ServiceClock.milliseconds()
        for event in events {
            let id = newID("evt")
            // The key's own count (kept apart from the events, so that purging old events
            // never makes a number come again).
            guard
                let ownerSeq = try await sql.execute(
                    """
                    INSERT INTO event_counters (owner, last) VALUES ($1, 1)
                    ON CONFLICT (owner) DO UPDATE SET last = event_counters.last + 1 RETURNING last
                    """, [.text(event.owner)]
                ).first?.int("last"),
                let seq = try await sql.execute(
                    """
                    INSERT INTO events (id, owner, type, subject, state, created, owner_seq)
                    VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING seq
                    """,
                    [
                        .text(id), .text(event.owner), .text(event.kind.rawValue), .text(event.subject),
                        .text(event.state), .int(now), .int(ownerSeq),
                    ]
                ).first?.int("seq")
            else { throw ServiceDatabaseError(reason: "an event was written without its number", code: nil) }
            // The outbox: one delivery per endpoint of the key that wants this type, due at
            // once (0: whatever the database's clock, which the claims compare, says).
            _ = try await sql.execute(
                """
                INSERT INTO deliveries (event, endpoint, seq, subject, status, next_attempt, created)
                SELECT $1, id, $2, $3, 'pending', 0, $4 FROM webhook_endpoints
                WHERE owner = $5 AND disabled IS NULL AND (types = '*' OR types LIKE $6)
                """,
                [
                    .text(id), .int(seq), .text(event.subject), .int(now), .text(event.owner),
                    .text("%," + event.kind.rawValue + ",%"),
                ])
        }
    }

    /// `owner`'s events after its number `after` (`ownerSeq`; from the first when nil), oldest
    /// first, at most `limit`, only of `kind` when given.
    /// - Returns: the events and whether more follow.
    func events(owner: String, after: Int?, limit: Int, kind: EventRecord.Kind?) async throws
        -> (events: [EventRecord], more: Bool)
    {
        var sql = "SELECT \(EventRecord.columns) FROM events WHERE owner = $1 AND owner_seq > $2"
        var binds: [SQLValue] = [.text(owner), .int(after ?? 0)]
        if let kind {
            binds.append(.text(kind.rawValue))
            sql += " AND type = $\(binds.count)"
        }
        binds.append(.int(limit + 1))
        sql += " ORDER BY owner_seq LIMIT $\(binds.count)"
        let events = try await database.execute(sql, binds).compactMap(Self.event(row:))
        return (Array(events.prefix(limit)), events.count > limit)
    }
}
