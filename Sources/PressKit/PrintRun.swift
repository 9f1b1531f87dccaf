import Mail

/// A print run: finished postcards put in the order they leave the press, imposed N-up on
/// press sheets, and the deposit manifest that says where each one goes. `cardrender impose`
/// and the postcard service's `/v1/print-runs` both make their runs here.
///
/// Sorted by destination, the run is imposed cut-and-stack (`CutAndStack`): once the pile of
/// sheets is cut and the stacks laid in position order, the cards are in the sorted order,
/// ready for the post. In the given order, the sheets are filled row by row.
public struct PrintRun {
    /// The order the postcards are printed in.
    public enum Order: Sendable {
        /// As given.
        case given
        /// By destination (`Destination`'s order: country, postcode, name), stably (postcards
        /// to one destination keep their given order), postcards without a country last.
        case byDestination
    }

    /// The postcards in press order.
    public let postcards: [Imposer.Postcard]
    /// For each postcard in press order, its index in the postcards given.
    public let order: [Int]
    /// Each postcard's destination in press order, when they were given.
    private let destinations: [Destination]?
    /// Where each postcard in press order is printed: its sheet and position (from 0).
    public let placements: [CutAndStack.Placement]
    /// The layout of every sheet.
    public let layout: SheetLayout
    private let imposer: Imposer
    private let sheets: [[Imposer.Postcard]]

    /// Puts `postcards` in order and lays them out on `sheet`.
    /// - Parameters:
    ///   - destinations: each postcard's destination, in the order given; nil when unknown
    ///     (then `order` must be `.given` and there is no manifest).
    /// - Throws: `ImpositionError` for no postcards, a postcard that is not one, or an order by
    ///   destination without the destinations; `SheetLayoutError` when no card fits the sheet.
    public init(
        _ postcards: [Imposer.Postcard], destinations: [Destination]?, order: Order, sheet: SheetLayout.Sheet
    ) throws {
        guard let first = postcards.first else { throw ImpositionError(message: "a print run needs a postcard") }
        if let destinations, destinations.count != postcards.count {
            throw ImpositionError(message: "\(destinations.count) destinations for \(postcards.count) postcards")
        }
        imposer = Imposer(sheet: sheet)
        layout = try imposer.layout(for: first)
        let pressOrder: [Int]
        switch order {
        case .given:
            pressOrder = Array(postcards.indices)
        case .byDestination:
            guard let destinations else {
                throw ImpositionError(message: "sorting by destination needs each postcard's destination")
            }
            pressOrder = postcards.indices.sorted { a, b in
                (destinations[a].country.isEmpty ? 1 : 0, destinations[a], a)
                    < (destinations[b].country.isEmpty ? 1 : 0, destinations[b], b)
            }
        }
        let ordered = pressOrder.map { postcards[$0] }
        self.order = pressOrder
        self.postcards = ordered
        self.destinations = destinations.map { known in pressOrder.map { known[$0] } }
        let perSheet = layout.perSheet
        switch order {
        case .given:
            placements = ordered.indices.map { CutAndStack.Placement(sheet: $0 / perSheet, position: $0 % perSheet) }
            sheets = stride(from: 0, to: ordered.count, by: perSheet).map {
                Array(ordered[$0..<min(ordered.count, $0 + perSheet)])
            }
        case .byDestination:
            let plan = CutAndStack(cards: ordered.count, perSheet: perSheet)
            placements = plan.placements
            sheets = plan.grouped(ordered)
        }
    }

    /// How many sheets the run takes.
    public var sheetCount: Int { sheets.count }

    /// Every sheet in one PDF (fronts, backs, fronts, backs...).
    /// - Throws: what `Imposer.impose(sheets:)` throws.
    public func pdf() throws -> [UInt8] { try imposer.impose(sheets: sheets).pdf }

    /// Sheet `number` (from 0) as a PDF of its own: its fronts and its backs.
    /// - Throws: what `Imposer.impose(sheets:)` throws.
    public func pdf(ofSheet number: Int) throws -> [UInt8] { try imposer.impose(sheets: [sheets[number]]).pdf }

    /// The deposit manifest: every postcard in press order with its destination, sheet and
    /// position (from 1), under its name; nil without destinations.
    public var manifest: DepositManifest? {
        guard let destinations else { return nil }
        return DepositManifest(
            rows: postcards.indices.map { sequence in
                DepositManifest.Row(
                    sequence: sequence + 1, card: postcards[sequence].name, destination: destinations[sequence],
                    sheet: placements[sequence].sheet + 1, position: placements[sequence].position + 1)
            })
    }
}
