import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension OrderBook {
    // MARK: The queue

    /// A card claimed for rendering, with the lease's token.
    struct Claim: Sendable, Equatable {
        let card: CardRecord
        let token: String
        /// The node whose lease ran out, when the card was taken over from one.
        var takenOverFrom: String? = nil
    }

    /// What a claim found: the card claimed, if any, and the cards failed for having been
    /// claimed too often, with their reason.
    struct ClaimResult: Sendable {
        var claim: Claim?
        var failed: [(id: String, error: String)] = []
    }

    /// The cards of this database by status, and how many wait to be rendered (queued, or
    /// rendering under a lease that ran out).
    func statusCounts() async throws -> (byStatus: [String: Int], waiting: Int) {
        var counts: [String: Int] = [:]
        for row in try await database.execute("SELECT status, COUNT(*) AS n FROM cards GROUP BY status", []) {
            if let status = row.text("status") { counts[status] = row.int("n") ?? 0 }
        }
        let waiting =
            try await database.execute(
                """
                SELECT COUNT(*) AS n FROM cards WHERE status = 'queued'
                OR (status = 'rendering' AND lease_until < \(database.dialect.now))
                """, []
            ).first?.int("n") ?? 0
        return (counts, waiting)
    }

    /// Claims the oldest queued card, or one whose renderer's lease ran out (its node died),
    /// for `lease` milliseconds of the database's clock. A card claimed `maxAttempts` times
    /// without finishing is failed instead: it stops every node that renders it, or the
    /// store cannot take it.
    /// - Parameter node: this node's name, the start of the lease's token (which node holds
    ///   a card shows in the table).
    func claim(leaseMilliseconds lease: Int, node: String = "node", maxAttempts: Int = 5) async throws -> ClaimResult {
        let token = node + "/" + Self.randomHex(16)
        let dialect = database.dialect
        return try await database.transaction { sql in
            guard let now = try await sql.execute("SELECT \(dialect.now) AS now", []).first?.int("now") else {
                throw ServiceDatabaseError(reason: "the database gave no time", code: nil)
            }
            var result = ClaimResult()
            let failed = try await sql.execute(
                """
                UPDATE cards SET status = 'failed', lease_token = NULL, updated = $2, failed_at = $2,
                error = 'rendering did not finish after ' || attempts || ' attempts (the node rendering it died, or the store could not be written, each time)'
                WHERE status IN ('queued', 'rendering') AND lease_until < $2 AND attempts >= $1
                RETURNING \(CardRecord.columns)
                """, [.int(maxAttempts), .int(now)]
            ).compactMap(CardRecord.init(row:))
            result.failed = failed.map { ($0.id, $0.error ?? "") }
            // A queued card with a lease_until was put back (`release`): it waits until then.
            // The one chosen is read first (locked on PostgreSQL), so that a card taken over
            // from a node whose lease ran out is known as such.
            guard
                let chosen = try await sql.execute(
                    """
                    SELECT id, status, lease_token FROM cards WHERE status IN ('queued', 'rendering')
                    AND (lease_until IS NULL OR lease_until < $1)
                    ORDER BY created, id LIMIT 1\(dialect.skipLocked)
                    """, [.int(now)]
                ).first, let id = chosen.text("id")
            else { return result }
            let rows = try await sql.execute(
                """
                UPDATE cards SET status = 'rendering', lease_token = $1, lease_until = $2, attempts = attempts + 1,
                updated = $3
                WHERE id = $4 RETURNING \(CardRecord.columns)
                """, [.text(token), .int(now + lease), .int(now), .text(id)])
            let previous = chosen.text("status") == "rendering" ? chosen.text("lease_token") : nil
            result.claim = rows.first.flatMap(CardRecord.init(row:)).map {
                Claim(card: $0, token: token, takenOverFrom: previous.map { String($0.prefix { $0 != "/" }) })
            }
            try await Self.write(failed.compactMap(EventRecord.New.card), in: sql, dialect: dialect)
            return result
        }
    }

    /// Puts back in the queue every card `node` was rendering when it stopped: a node that
    /// starts again under the same `--node-name` takes its own cards up at once, without
    /// waiting for their leases to run out. On SQLite (one node by construction: one file,
    /// one writer) every card left `rendering` is this node's, whatever name it had.
    /// - Returns: the cards put back.
    @discardableResult
    func recover(node: String) async throws -> [String] {
        let mine = database.dialect == .sqlite ? "" : "AND substr(lease_token, 1, length($1)) = $1"
        return try await database.execute(
            """
            UPDATE cards SET status = 'queued', lease_token = NULL, lease_until = NULL
            WHERE status = 'rendering' \(mine) RETURNING id
            """, database.dialect == .sqlite ? [] : [.text(node + "/")]
        ).compactMap { $0.text("id") }
    }

    /// Extends a claim's lease by `lease` milliseconds from now (the renderer is alive).
    /// - Returns: false when the claim no longer holds the card (cancelled, or taken over).
    func renew(_ claim: Claim, leaseMilliseconds lease: Int) async throws -> Bool {
        !(try await database.execute(
            """
            UPDATE cards SET lease_until = \(database.dialect.now) + $3
            WHERE id = $1 AND lease_token = $2 AND status = 'rendering' RETURNING id
            """, [.text(claim.card.id), .text(claim.token), .int(lease)]
        ).isEmpty)
    }

    /// Records a claimed card's result (`ready` or `failed`) with its event, if its lease is
    /// still this claim's (a card cancelled, or taken over after the lease ran out, is not
    /// touched).
    /// - Returns: whether the result was recorded.
    @discardableResult
    func finish(_ claim: Claim, status: CardRecord.Status, verdict: String?, error: String?, entryKey: String?)
        async throws -> Bool
    {
        precondition(status == .ready || status == .failed, "finish: a rendered card is ready or failed")
        let dialect = database.dialect
        return try await database.transaction { sql in
            let card = try await sql.execute(
                """
                UPDATE cards SET status = $3, verdict = $4, error = $5, entry_key = $6, lease_token = NULL,
                readied = readied + $7, updated = $8, \(status.timeColumn ?? "updated") = $8
                WHERE id = $1 AND lease_token = $2 AND status = 'rendering' RETURNING \(CardRecord.columns)
                """,
                [
                    .text(claim.card.id), .text(claim.token), .text(status.rawValue), .text(verdict), .text(error),
                    .text(entryKey), .int(status == .ready ? 1 : 0), .int(ServiceClock.milliseconds()),
                ]
            ).first.flatMap(CardRecord.init(row:))
            try await Self.write(card.flatMap(EventRecord.New.card).map { [$0] } ?? [], in: sql, dialect: dialect)
            return card != nil
        }
    }

    /// Puts a claimed card back in the queue, to be claimed again after `backoff`
    /// milliseconds (its store could not be written: try later, not at once).
    func release(_ claim: Claim, backoffMilliseconds backoff: Int = 5_000) async throws {
        _ = try await database.execute(
            """
            UPDATE cards SET status = 'queued', lease_token = NULL, lease_until = \(database.dialect.now) + $3
            WHERE id = $1 AND lease_token = $2
            """, [.text(claim.card.id), .text(claim.token), .int(backoff)])
    }

    /// How many times each of `owner`'s cards became ready (1 each, or the queue is wrong).
    func readiedCounts(owner: String) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try await database.execute("SELECT id, readied FROM cards WHERE owner = $1", [.text(owner)]) {
            if let id = row.text("id") { counts[id] = row.int("readied") ?? 0 }
        }
        return counts
    }
}
