import CardKit
import CardPipeline
import PressKit
import RenderCache

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension PostcardService {
    /// Gathers every ready card of `press` that `owner` has not printed yet into sheets:
    /// imposed N-up (fronts, then their backs in register: `Imposer`), each sheet's PDF
    /// preflighted for the press and stored; then, in one transaction, the run is recorded
    /// and its cards become `printed`.
    /// - Throws: `Problem` 422 (not a PDF press, a sheet no card fits, no ready card), 409
    ///   (a card was cancelled or printed meanwhile), 503 (the store).
    func printRun(press: String, sheet: String, owner: String) async throws -> PrintRunRecord {
        guard let profile = configuration.presses[press] else {
            throw Problem(
                .unprocessableContent,
                "press must be a PDF press (\(configuration.presses.keys.sorted().joined(separator: ", "))); received \(press).",
                errors: [Problem.FieldError(field: "press", detail: "not a PDF press of this server")])
        }
        guard let layoutSheet = SheetLayout.Sheet(sheet) else {
            throw Problem(
                .unprocessableContent, "sheet must be sra3, a3 or WIDTHxHEIGHT in millimetres; received \(sheet).",
                errors: [Problem.FieldError(field: "sheet", detail: "not a sheet size")])
        }
        let cards = try await book.readyCards(owner: owner, press: press)
        guard !cards.isEmpty else {
            throw Problem(.unprocessableContent, "No card of press \(press) is ready and not yet printed.")
        }
        let runID = OrderBook.newID("run")
        let sheets: [String] = try await renderPool.runIfActive { [configuration] in
            let postcards = try cards.map { card in
                guard let key = card.entryKey.flatMap(CacheKey.init(hex:)),
                    let finished = configuration.store.cache.entry(for: key).flatMap(FinishedCard.init(entry:)),
                    let print = finished.sides.first?.print
                else {
                    throw Problem(
                        .serviceUnavailable, "The card \(card.id) cannot be read from the store now; retry later.")
                }
                return Imposer.Postcard(name: card.id, bytes: Array(print))
            }
            let imposer = Imposer(sheet: layoutSheet)
            let perSheet: Int
            do {
                perSheet = try imposer.impose(Array(postcards.prefix(1))).layout.perSheet
            } catch let error as SheetLayoutError {
                throw Problem(.unprocessableContent, "sheet \(sheet): \(error)")
            }
            return try stride(from: 0, to: postcards.count, by: perSheet).map { start in
                let group = Array(postcards[start..<min(start + perSheet, postcards.count)])
                let pdf = try imposer.impose(group).pdf
                // Every check of the press but its boxes: those are a postcard's size, a sheet's is the sheet's.
                let report = Preflight(press: profile).check(pdf, name: "\(runID) sheet \(start / perSheet + 1)")
                let failures = report.checks.filter { !$0.passed && $0.name != "boxes" }
                guard failures.isEmpty else {
                    throw CardRenderFailure(
                        stage: .encoding, file: runID,
                        detail: "the imposed sheet fails preflight: "
                            + failures.map { "\($0.name): \($0.detail)" }.joined(separator: "; "))
                }
                let digest = ContentDigest.of(pdf)
                _ = try configuration.store.cache.store(
                    CacheEntry(parts: [("sheet", Data(pdf))]), for: CacheKey(hex: digest)!)
                return digest
            }
        }
        let run = PrintRunRecord(
            id: runID, owner: owner, press: press, sheet: sheet, cards: cards.map(\.id), sheets: sheets)
        do {
            _ = try await book.recordRun(run)
        } catch  where !(error is ServiceDatabaseError) {
            throw Problem(.conflict, "A card of this run was cancelled or printed meanwhile; ask for the run again.")
        }
        return run
    }

    /// The PDF of sheet `number` (from 1) of `owner`'s run `id`.
    func sheet(_ number: Int, run id: String, owner: String) async throws -> Data {
        guard let run = try await book.run(owner: owner, id: id) else { throw Problem.notFound("The print run \(id)") }
        guard (1...run.sheets.count).contains(number) else {
            throw Problem.notFound("Sheet \(number) of the print run \(id) (it has \(run.sheets.count))")
        }
        let digest = run.sheets[number - 1]
        let pdf = try await renderPool.runIfActive { [configuration] in
            CacheKey(hex: digest).flatMap { configuration.store.cache.entry(for: $0) }?.part("sheet")
        }
        guard let pdf else {
            throw Problem(
                .serviceUnavailable, "Sheet \(number) of \(id) cannot be read from the store now; retry later.")
        }
        return pdf
    }
}
