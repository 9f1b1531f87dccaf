import CardKit
import CardPipeline
import HTTPTypes
import Mail
import NIOPosix
import PressKit
import RenderCache

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension PostcardService {
    /// Gathers every ready card of `press` that `owner` has not printed yet into sheets:
    /// a `PrintRun` (as `cardrender impose --sort destination` makes): sorted by destination
    /// (`Destination`: country, postcode, name; a card without a recipient last), imposed N-up
    /// cut-and-stack (the pile of sheets cut and the stacks laid one on the next give the cards
    /// in that order; fronts, then their backs in register), each sheet's PDF preflighted for
    /// the press and stored, the deposit manifest (JSON and CSV) stored beside them; then, in
    /// one transaction, the run is recorded and its cards become `printed`.
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
        let ready = try await book.readyCards(owner: owner, press: press)
        guard !ready.isEmpty else {
            throw Problem(.unprocessableContent, "No card of press \(press) is ready and not yet printed.")
        }
        let destinations = ready.map {
            Self.destination(ofSpec: $0.spec, format: profile.cardFormat, postedFrom: configuration.settings.postedFrom)
        }
        let runID = OrderBook.newID("run")
        let (order, sheets, manifest): ([Int], [String], String) = try await renderPool.runIfActive {
            [configuration] in
            let postcards = try ready.map { card in
                guard let key = card.entryKey.flatMap(CacheKey.init(hex:)),
                    let finished = configuration.store.entries.entry(for: key).flatMap(FinishedCard.init(entry:)),
                    let print = finished.sides.first?.print
                else {
                    throw Problem(
                        .serviceUnavailable, "The card \(card.id) cannot be read from the store now; retry later.")
                }
                return Imposer.Postcard(name: card.id, bytes: Array(print))
            }
            // In the order they leave the press: by destination, stably (the book's order, oldest
            // first, among cards to one destination), cards without a recipient last.
            let run: PrintRun
            do {
                run = try PrintRun(postcards, destinations: destinations, order: .byDestination, sheet: layoutSheet)
            } catch let error as SheetLayoutError {
                throw Problem(.unprocessableContent, "sheet \(sheet): \(error)")
            }
            let sheets = try (0..<run.sheetCount).map { number in
                // One PDF a sheet: its cards in its first positions, the rest left empty.
                let pdf = try run.pdf(ofSheet: number)
                // Every check of the press but its boxes: those are a postcard's size, a sheet's is the sheet's.
                let report = Preflight(press: profile).check(pdf, name: "\(runID) sheet \(number + 1)")
                let failures = report.checks.filter { !$0.passed && $0.name != "boxes" }
                guard failures.isEmpty else {
                    throw CardRenderFailure(
                        stage: .encoding, file: runID,
                        detail: "the imposed sheet fails preflight: "
                            + failures.map { "\($0.name): \($0.detail)" }.joined(separator: "; "))
                }
                let digest = ContentDigest.of(pdf)
                _ = try configuration.store.entries.store(
                    CacheEntry(parts: [("sheet", Data(pdf))]), for: CacheKey(hex: digest)!)
                return digest
            }
            let deposit = run.manifest!
            let json = deposit.json()
            let manifest = ContentDigest.of(json)
            _ = try configuration.store.entries.store(
                CacheEntry(parts: [("json", Data(json)), ("csv", Data(deposit.csv().utf8))]),
                for: CacheKey(hex: manifest)!)
            return (run.order, sheets, manifest)
        }
        let cards = order.map { ready[$0] }
        let run = PrintRunRecord(
            id: runID, owner: owner, press: press, sheet: sheet, cards: cards.map(\.id), sheets: sheets,
            manifest: manifest)
        do {
            _ = try await book.recordRun(run)
        } catch  where !(error is ServiceDatabaseError) {
            throw Problem(.conflict, "A card of this run was cancelled or printed meanwhile; ask for the run again.")
        }
        return run
    }

    /// Where the card of `spec` (one recipient's card, as the book keeps it) goes: the
    /// recipient's country code, postcode as printed (`AddressBlock`) and name, and the mail
    /// class of `format`, the size the press printed. A spec the renderer would no longer read
    /// (ordered before a rule changed) is read field by field: the country by
    /// `Country.resolve(_:)`, kept upper-cased when no country matches. A card without a
    /// recipient has an empty country, postcode and name.
    static func destination(ofSpec spec: String, format: CardFormat, postedFrom: String) -> Destination {
        // As the card was printed: its address written for its destination, at the press's size.
        if let parsed = try? CardSpec.parse(Data(spec.utf8), file: "spec"), let recipient = parsed.recipients.first,
            let origin = Country.named(code: postedFrom), let block = try? AddressBlock(recipient, postedFrom: origin)
        {
            return Destination(
                country: block.destination.code, postcode: block.postcode ?? "", name: recipient.name,
                mailClass: format.mailClass)
        }
        let fields: [String: JSONValue]
        if case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(spec.utf8)) {
            fields = object
        } else {
            fields = [:]
        }
        var recipient: [String: JSONValue] = [:]
        if case .array(let recipients)? = fields["recipients"], case .object(let first)? = recipients.first {
            recipient = first
        }
        func text(_ key: String) -> String {
            if case .string(let value)? = recipient[key] { return value }
            return ""
        }
        let countryText = text("country")
        let country =
            countryText.isEmpty ? "" : (try? Country.resolve(countryText))?.code ?? countryText.uppercased()
        return Destination(
            country: country, postcode: text("postcode"), name: text("name"),
            mailClass: format.mailClass)
    }

    /// The deposit manifest of `owner`'s run `id` as `format` (`json` or `csv`).
    /// - Throws: `Problem` 404 (no such run, or a run made before manifests were kept), 503
    ///   (the store).
    func manifest(run id: String, format: String, owner: String) async throws -> Data {
        guard let run = try await book.run(owner: owner, id: id) else { throw Problem.notFound("The print run \(id)") }
        guard let digest = run.manifest else {
            // A run made before runs kept their manifest.
            throw Problem.notFound("The manifest of the print run \(id)")
        }
        let data = try await renderPool.runIfActive { [configuration] in
            CacheKey(hex: digest).flatMap { configuration.store.entries.entry(for: $0) }?.part(format)
        }
        guard let data else {
            throw Problem(
                .serviceUnavailable, "The manifest of \(id) cannot be read from the store now; retry later.")
        }
        return data
    }

    /// The PDF of sheet `number` (from 1) of `owner`'s run `id`.
    func sheet(_ number: Int, run id: String, owner: String) async throws -> Data {
        guard let run = try await book.run(owner: owner, id: id) else { throw Problem.notFound("The print run \(id)") }
        guard (1...run.sheets.count).contains(number) else {
            throw Problem.notFound("Sheet \(number) of the print run \(id) (it has \(run.sheets.count))")
        }
        let digest = run.sheets[number - 1]
        let pdf = try await renderPool.runIfActive { [configuration] in
            CacheKey(hex: digest).flatMap { configuration.store.entries.entry(for: $0) }?.part("sheet")
        }
        guard let pdf else {
            throw Problem(
                .serviceUnavailable, "Sheet \(number) of \(id) cannot be read from the store now; retry later.")
        }
        return pdf
    }
}
