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
        try await database.transaction { sql in
            for card in run.cards {
                let updated = try await sql.execute(
                    """
                    UPDATE cards SET status = 'printed', print_run = $1, updated = $4
                    WHERE id = $2 AND owner = $3 AND status = 'ready' RETURNING id
                    """, [.text(run.id), .text(card), .text(run.owner), .int(ServiceClock.milliseconds())])
                if updated.isEmpty { throw RunConflict() }
            }
            _ = try await sql.execute(
                """
                INSERT INTO print_runs (id, owner, press, sheet, cards, sheets, manifest, created)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                """,
                [
                    .text(run.id), .text(run.owner), .text(run.press), .text(run.sheet),
                    .text(run.cards.joined(separator: ",")), .text(run.sheets.joined(separator: ",")),
                    .text(run.manifest), .int(ServiceClock.milliseconds()),
                ])
            return true
        }
    }

    /// Thrown inside `recordRun`'s transaction to roll it back.
    private struct RunConflict: Error {}

    /// `owner`'s run `id`, or nil.
    func run(owner: String, id: String) async throws -> PrintRunRecord? {
        guard
            let row = try await database.execute(
                "SELECT id, owner, press, sheet, cards, sheets, manifest FROM print_runs WHERE id = $1 AND owner = $2",
                [.text(id), .text(owner)]
            ).first, let press = row.text("press"), let sheet = row.text("sheet")
        else { return nil }
        let list = { (column: String) in (row.text(column) ?? "").split(separator: ",").map(String.init) }
        return PrintRunRecord(
            id: id, owner: owner, press: press, sheet: sheet, cards: list("cards"), sheets: list("sheets"),
            manifest: row.text("manifest"))
    }
}
