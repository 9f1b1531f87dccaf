/// Where each card of a sorted run goes on the sheets so that the run leaves the guillotine
/// in order: cut-and-stack imposition.
///
/// With N cards, P positions a sheet and S = ceil(N / P) sheets, card i (from 0, in the
/// run's order) is printed on sheet i mod S at position i div S. Sheet s thus holds cards
/// s, s + S, s + 2S, ... in positions 0, 1, 2, ...: its filled positions are a prefix, and
/// only the last positions of the last sheets can be empty (at most S - 1 cards short in all).
///
/// Why it gives the order: the S sheets are printed and piled in order, sheet 1 on top,
/// fronts up. The guillotine cuts the whole pile at once, so each position becomes a stack
/// of S cards, one from each sheet, top to bottom: position p's stack holds cards p·S,
/// p·S + 1, ..., p·S + S - 1, consecutive in the run. Laying the stack of position 1 on the
/// stack of position 2, that pile on the stack of position 3, and so on, gives a pile whose
/// cards from the top are 0, 1, 2, ..., N - 1. A stack left short by the empty positions is
/// the last one, and still consecutive. Sorting once and stacking in position order is all
/// the finishing needs; no card is picked by hand.
///
/// Positions are numbered as `SheetLayout.origin(of:mirrored:)` numbers them on the sheet of
/// fronts: row by row from the top left. Indices here count from 0; the manifest's sheets and
/// positions count from 1.
public struct CutAndStack: Sendable, Equatable {
    /// Where one card is printed (both from 0).
    public struct Placement: Sendable, Equatable, Hashable {
        public let sheet: Int
        public let position: Int

        public init(sheet: Int, position: Int) {
            self.sheet = sheet
            self.position = position
        }
    }

    /// The number of cards.
    public let cardCount: Int
    /// Positions on a sheet.
    public let perSheet: Int
    /// Per sheet, the cards (indices in the run) in position order: `sheets[s][p]` is the card
    /// at position p of sheet s.
    public let sheets: [[Int]]
    /// Per card (index in the run), its sheet and position.
    public let placements: [Placement]

    /// The number of sheets, ceil(`cardCount` / `perSheet`).
    public var sheetCount: Int { sheets.count }

    /// The plan for `cards` cards, sorted, on sheets of `perSheet` positions.
    /// - Precondition: `cards` >= 0 and `perSheet` >= 1 (a `SheetLayout` always has one
    ///   position at least).
    public init(cards: Int, perSheet: Int) {
        precondition(cards >= 0 && perSheet >= 1, "cut-and-stack needs cards >= 0 and perSheet >= 1")
        cardCount = cards
        self.perSheet = perSheet
        let sheetCount = (cards + perSheet - 1) / perSheet
        var sheets = Array(repeating: [Int](), count: sheetCount)
        var placements: [Placement] = []
        placements.reserveCapacity(cards)
        for card in 0..<cards {
            let placement = Placement(sheet: card % sheetCount, position: card / sheetCount)
            sheets[placement.sheet].append(card)
            placements.append(placement)
        }
        self.sheets = sheets
        self.placements = placements
    }

    /// `items` (one per card, in the run's order) grouped by sheet, each group in position
    /// order: what `Imposer.impose(sheets:)` takes.
    /// - Precondition: `items.count == cardCount`.
    public func grouped<Item>(_ items: [Item]) -> [[Item]] {
        precondition(items.count == cardCount, "cut-and-stack of \(cardCount) cards given \(items.count) items")
        return sheets.map { $0.map { items[$0] } }
    }

    /// The order the stacks give, top to bottom, once each position's stack (the pile of
    /// sheets cut) is laid on the next: `0..<cardCount` by construction (what the tests check).
    public var stackedOrder: [Int] {
        (0..<perSheet).flatMap { position in sheets.compactMap { $0.count > position ? $0[position] : nil } }
    }
}
