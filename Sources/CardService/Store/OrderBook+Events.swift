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
            _ = try await sql.execute(
                "INSERT INTO events (id, owner, type, subject, state, created) VALUES ($1, $2, $3, $4, $5, $6)",
                [
                    .text(newID("evt")), .text(event.owner), .text(event.kind.rawValue), .text(event.subject),
                    .text(event.state), .int(now),
                ])
        }
    }

    /// `owner`'s events after number `after` (from the first when nil), oldest first, at most
    /// `limit`, only of `kind` when given.
    /// - Returns: the events and whether more follow.
    func events(owner: String, after: Int?, limit: Int, kind: EventRecord.Kind?) async throws
        -> (events: [EventRecord], more: Bool)
    {
        var sql = "SELECT seq, id, type, subject, state, created FROM events WHERE owner = $1 AND seq > $2"
        var binds: [SQLValue] = [.text(owner), .int(after ?? 0)]
        if let kind {
            binds.append(.text(kind.rawValue))
            sql += " AND type = $\(binds.count)"
        }
        binds.append(.int(limit + 1))
        sql += " ORDER BY seq LIMIT $\(binds.count)"
        let events = try await database.execute(sql, binds).compactMap { row -> EventRecord? in
            guard let seq = row.int("seq"), let id = row.text("id"),
                let kind = row.text("type").flatMap(EventRecord.Kind.init(rawValue:)),
                let subject = row.text("subject"), let state = row.text("state"), let created = row.int("created")
            else { return nil }
            return EventRecord(
                seq: seq, id: id, owner: owner, kind: kind, subject: subject, state: state, created: created)
        }
        return (Array(events.prefix(limit)), events.count > limit)
    }
}
