extension OrderBook {
    // MARK: Retention

    /// Deletes the events written before `cutoff` (milliseconds since 1970) with their
    /// deliveries, and the deliveries finished (delivered or given up) before `finishedCutoff`
    /// (a replay makes them again from their events): a thousand rows a statement, so no
    /// statement holds the tables for long.
    /// - Returns: the events and the deliveries deleted.
    @discardableResult
    func purge(before cutoff: Int, finishedBefore finishedCutoff: Int) async throws -> (events: Int, deliveries: Int) {
        var (events, deliveries) = (0, 0)
        while true {
            // The same thousand oldest events in both statements: ordered by number, and every
            // event written meanwhile is newer than the cutoff.
            let batch = try await database.transaction { sql in
                let oldest = "SELECT seq FROM events WHERE created < $1 ORDER BY seq LIMIT 1000"
                let dropped = try await sql.execute(
                    "DELETE FROM deliveries WHERE seq IN (\(oldest)) RETURNING event", [.int(cutoff)]
                ).count
                let deleted = try await sql.execute(
                    "DELETE FROM events WHERE seq IN (\(oldest)) RETURNING seq", [.int(cutoff)]
                ).count
                return (deleted, dropped)
            }
            events += batch.0
            deliveries += batch.1
            if batch.0 == 0 { break }
        }
        while true {
            let finished = try await database.execute(
                """
                DELETE FROM deliveries WHERE (event, endpoint) IN (
                    SELECT event, endpoint FROM deliveries WHERE finished < $1 LIMIT 1000)
                RETURNING event
                """, [.int(finishedCutoff)]
            ).count
            deliveries += finished
            if finished == 0 { break }
        }
        return (events, deliveries)
    }
}
