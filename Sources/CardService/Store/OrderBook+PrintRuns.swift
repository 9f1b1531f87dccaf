import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension OrderBook {
    // MARK: Print runs

    /// `owner`'s ready cards of `press`, oldest first, not yet in a run.
    func readyCards(owner: String, press: String) async throws -> [CardRecord] {
        try await database.execute(
            """
            SELECT \(CardRecord.columns) FROM cards WHERE owner = $1 AND press = $2 AND status = 'ready'
            ORDER BY created, id
            """, [.text(owner), .text(press)]
        ).compactMap(CardRecord.init(row:))
    }

    /// Records a run and marks its cards printed, all or none.
    /// - Returns: false when one of the cards is no longer ready (cancelled, or printed by
    ///   another run meanwhile): nothing is recorded.
    func recordRun(_ run: PrintRunRecord) async throws -> Bool {
        let dialect = database.dialect
        return try await database.transaction { sql in
            var printed: [CardRecord] = []
            let now = ServiceClock.milliseconds()
            for card in run.cards {
                guard
                    let updated = try await sql.execute(
                        """
                        UPDATE cards SET status = 'printed', print_run = $1, updated = $4, printed_at = $4
                        WHERE id = $2 AND owner = $3 AND status = 'ready' RETURNING \(CardRecord.columns)
                        """, [.text(run.id), .text(card), .text(run.owner), .int(now)]
                    ).first.flatMap(CardRecord.init(row:))
                else { throw RunConflict() }
                printed.append(updated)
            }
            _ = try await sql.execute(
                """
                INSERT INTO print_runs (id, owner, press, sheet, cards, sheets, manifest, created)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                """,
                [
                    .text(run.id), .text(run.owner), .text(run.press), .text(run.sheet),
                    .text(run.cards.joined(separator: ",")), .text(run.sheets.joined(separator: ",")),
                    .text(run.manifest), .int(now),
                ])
            try await Self.write(
                printed.compactMap(EventRecord.New.card) + [.run(.printRunCreated, run)], in: sql, dialect: dialect)
            return true
        }
    }

    /// What handing a run to the post came to.
    enum Mailed: Sendable, Equatable {
        /// The run, mailed now (`changed`) or before.
        case mailed(PrintRunRecord, changed: Bool)
        case notFound
    }

    /// Records that `owner`'s run `id` was handed to the post: the run and each of its cards
    /// still printed (not one cancelled since, which cannot happen, nor already mailed) become
    /// mailed now, with their events. Mailing a run twice changes nothing the second time.
    func mailRun(owner: String, id: String) async throws -> Mailed {
        let dialect = database.dialect
        return try await database.transaction { sql in
            let now = ServiceClock.milliseconds()
            let changed = try await sql.execute(
                "UPDATE print_runs SET mailed = $3 WHERE id = $1 AND owner = $2 AND mailed IS NULL RETURNING id",
                [.text(id), .text(owner), .int(now)])
            guard let run = try await Self.run(owner: owner, id: id, in: sql) else { return .notFound }
            guard !changed.isEmpty else { return .mailed(run, changed: false) }
            let cards = try await sql.execute(
                """
                UPDATE cards SET status = 'mailed', updated = $3, mailed_at = $3
                WHERE print_run = $1 AND owner = $2 AND status = 'printed' RETURNING \(CardRecord.columns)
                """, [.text(id), .text(owner), .int(now)]
            ).compactMap(CardRecord.init(row:))
            // The run's own order, not the database's.
            let order = Dictionary(uniqueKeysWithValues: run.cards.enumerated().map { ($1, $0) })
            let sorted = cards.sorted { (order[$0.id] ?? 0) < (order[$1.id] ?? 0) }
            try await Self.write(
                sorted.compactMap(EventRecord.New.card) + [.run(.printRunMailed, run)], in: sql, dialect: dialect)
            return .mailed(run, changed: true)
        }
    }

    /// Thrown inside `recordRun`'s transaction to roll it back.
    private struct RunConflict: Error {}

    /// `owner`'s run `id`, or nil.
    func run(owner: String, id: String) async throws -> PrintRunRecord? {
        try await Self.run(owner: owner, id: id, in: database)
    }

    /// `owner`'s run `id` as `sql` reads it (in a transaction or not), or nil.
    static func run(owner: String, id: String, in sql: any SQLExecutor) async throws -> PrintRunRecord? {
        guard
            let row = try await sql.execute(
                """
                SELECT id, owner, press, sheet, cards, sheets, manifest, mailed FROM print_runs
                WHERE id = $1 AND owner = $2
                """,
                [.text(id), .text(owner)]
            ).first, let press = row.text("press"), let sheet = row.text("sheet")
        else { return nil }
        let list = { (column: String) in (row.text(column) ?? "").split(separator: ",").map(String.init) }
        return PrintRunRecord(
            id: id, owner: owner, press: press, sheet: sheet, cards: list("cards"), sheets: list("sheets"),
            manifest: row.text("manifest"), mailed: row.int("mailed"))
    }
}
