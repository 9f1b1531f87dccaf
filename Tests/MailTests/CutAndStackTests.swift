import PressKit
import Testing

/// Cut-and-stack: the pile of sheets cut, the stacks laid one on the next, gives the run in
/// order, for every run and sheet size.
struct CutAndStackTests {
    /// What the finishing does by hand: the sheets piled in order (sheet 1 on top), cut, each
    /// position's stack (top to bottom) laid on the next position's.
    static func pileAfterCutting(_ plan: CutAndStack) -> [Int] {
        var pile: [Int] = []
        for position in 0..<plan.perSheet {
            for sheet in plan.sheets where position < sheet.count {
                pile.append(sheet[position])
            }
        }
        return pile
    }

    @Test func theStacksGiveTheRunInOrderForEveryRunAndSheet() {
        for cards in 1...60 {
            for perSheet in 1...12 {
                let plan = CutAndStack(cards: cards, perSheet: perSheet)
                let context = "\(cards) cards, \(perSheet) a sheet"
                #expect(plan.sheetCount == (cards + perSheet - 1) / perSheet, "\(context)")
                #expect(Self.pileAfterCutting(plan) == Array(0..<cards), "\(context)")
                #expect(plan.stackedOrder == Array(0..<cards), "\(context)")
                #expect(plan.placements.count == cards, "\(context)")
                for (number, sheet) in plan.sheets.enumerated() {
                    #expect(!sheet.isEmpty && sheet.count <= perSheet, "\(context): sheet \(number)")
                    // The filled positions are a prefix: the cards placed on this sheet are at
                    // positions 0..<count, each once.
                    let positions = plan.placements.enumerated().filter { $0.element.sheet == number }.map {
                        $0.element.position
                    }
                    #expect(positions.sorted() == Array(0..<sheet.count), "\(context): sheet \(number)")
                    for (position, card) in sheet.enumerated() {
                        #expect(plan.placements[card] == .init(sheet: number, position: position), "\(context)")
                    }
                }
            }
        }
    }

    @Test func tenCardsFourASheetTakeThreeSheets() {
        let plan = CutAndStack(cards: 10, perSheet: 4)
        #expect(plan.sheets == [[0, 3, 6, 9], [1, 4, 7], [2, 5, 8]])
        #expect(plan.placements[9] == .init(sheet: 0, position: 3))
        #expect(plan.grouped(Array("abcdefghij")) == [["a", "d", "g", "j"], ["b", "e", "h"], ["c", "f", "i"]])
    }

    @Test func noCardsMakeNoSheets() {
        let plan = CutAndStack(cards: 0, perSheet: 4)
        #expect(plan.sheetCount == 0 && plan.placements.isEmpty && plan.stackedOrder.isEmpty)
    }
}
