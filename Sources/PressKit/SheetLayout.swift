/// Where postcards sit on a press sheet: a grid of cards, each with its bleed, centred on
/// the sheet, crop marks outside the grid's bleed at every trim line. All lengths in points.
///
/// Cards touch bleed to bleed (one cut between two cards takes both bleeds off), so the
/// marks go around the block, where a guillotine operator lines them up.
public struct SheetLayout: Sendable, Equatable {
    /// A sheet size by name, or any size in millimetres.
    public enum Sheet: Sendable, Equatable {
        /// SRA3, 320 x 450 mm: the common digital press sheet.
        case sra3
        /// A3, 297 x 420 mm.
        case a3
        /// Width x height in millimetres.
        case millimetres(Double, Double)

        /// `sra3`, `a3` or `WIDTHxHEIGHT` in millimetres (`330x480`).
        public init?(_ text: String) {
            switch text.lowercased() {
            case "sra3": self = .sra3
            case "a3": self = .a3
            default:
                let parts = text.lowercased().replacingOccurrences("mm", "").split(separator: "x")
                guard parts.count == 2, let width = Double(parts[0]), let height = Double(parts[1]), width > 0,
                    height > 0, width <= 2000, height <= 2000
                else { return nil }
                self = .millimetres(width, height)
            }
        }

        /// Width and height in millimetres (portrait as named).
        public var size: (width: Double, height: Double) {
            switch self {
            case .sra3: (320, 450)
            case .a3: (297, 420)
            case .millimetres(let width, let height): (width, height)
            }
        }
    }

    /// How far outside the bleed a crop mark starts, and how long it is (millimetres).
    public static let markOffset = 2.0
    public static let markLength = 5.0

    /// The sheet, in points (landscape or portrait, whichever holds more cards).
    public let width: Double, height: Double
    /// One card with its bleed, in points.
    public let cardWidth: Double, cardHeight: Double
    /// The bleed on each side of a card, in points.
    public let bleed: Double
    public let columns: Int, rows: Int
    /// The lower left corner of the block of cards (bleed included).
    public let left: Double, bottom: Double

    /// Cards per sheet.
    public var perSheet: Int { columns * rows }

    /// The layout of cards of `cardWidth` x `cardHeight` points (bleed included, `bleed` on
    /// each side) on `sheet`, turned landscape when that holds more (and `turns`).
    /// - Throws: `SheetLayoutError` with the numbers when not one card fits with its marks.
    public init(sheet: Sheet, cardWidth: Double, cardHeight: Double, bleed: Double, turns: Bool = true)
        throws(SheetLayoutError)
    {
        let points = { (millimetres: Double) in millimetres / 25.4 * 72 }
        let marks = points(Self.markOffset + Self.markLength)
        let portrait = (width: points(sheet.size.width), height: points(sheet.size.height))
        func fit(_ width: Double, _ height: Double) -> (Int, Int) {
            // A hair of tolerance: a sheet cut exactly to size must not lose a card to round-off.
            let across = ((width - 2 * marks) / cardWidth + 1e-9).rounded(.down)
            let down = ((height - 2 * marks) / cardHeight + 1e-9).rounded(.down)
            return (Int(max(0, min(across, 10_000))), Int(max(0, min(down, 10_000))))
        }
        let upright = fit(portrait.width, portrait.height)
        let turned = fit(portrait.height, portrait.width)
        let useTurned = turns && turned.0 * turned.1 > upright.0 * upright.1
        (width, height) = useTurned ? (portrait.height, portrait.width) : (portrait.width, portrait.height)
        (columns, rows) = useTurned ? turned : upright
        guard columns >= 1, rows >= 1 else {
            let millimetres = { (points: Double) in SheetLayout.rounded(points / 72 * 25.4) }
            throw SheetLayoutError(
                message:
                    "a card needs \(millimetres(cardWidth + 2 * marks)) x \(millimetres(cardHeight + 2 * marks)) mm "
                    + "with its bleed and crop marks (\(Self.markOffset) mm + \(Self.markLength) mm each side); the sheet "
                    + "is \(SheetLayout.rounded(sheet.size.width)) x \(SheetLayout.rounded(sheet.size.height)) mm")
        }
        self.cardWidth = cardWidth
        self.cardHeight = cardHeight
        self.bleed = bleed
        left = (width - Double(columns) * cardWidth) / 2
        bottom = (height - Double(rows) * cardHeight) / 2
    }

    /// The lower left corner (bleed included) of card `index` on its sheet, counted from the
    /// top left, row by row; `mirrored` for the back of the sheet (the sheet turned over on
    /// its vertical axis, so each back lies behind its front).
    public func origin(of index: Int, mirrored: Bool) -> (x: Double, y: Double) {
        let (row, column) = (index / columns, index % columns)
        let placed = mirrored ? columns - 1 - column : column
        return (left + Double(placed) * cardWidth, bottom + Double(rows - 1 - row) * cardHeight)
    }

    /// The crop marks as PDF path operators (stroked by the caller): at every trim line,
    /// outside the block's bleed.
    public var marks: String {
        let points = { (millimetres: Double) in millimetres / 25.4 * 72 }
        let (offset, length) = (points(Self.markOffset), points(Self.markLength))
        let right = left + Double(columns) * cardWidth, top = bottom + Double(rows) * cardHeight
        var path = ""
        func line(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
            path +=
                "\(PDFSyntax.number(x0)) \(PDFSyntax.number(y0)) m "
                + "\(PDFSyntax.number(x1)) \(PDFSyntax.number(y1)) l\n"
        }
        for column in 0..<columns {
            for x in [left + Double(column) * cardWidth + bleed, left + Double(column + 1) * cardWidth - bleed] {
                line(x, top + offset, x, top + offset + length)
                line(x, bottom - offset, x, bottom - offset - length)
            }
        }
        for row in 0..<rows {
            for y in [bottom + Double(row) * cardHeight + bleed, bottom + Double(row + 1) * cardHeight - bleed] {
                line(left - offset, y, left - offset - length, y)
                line(right + offset, y, right + offset + length, y)
            }
        }
        return path
    }

    static func rounded(_ value: Double) -> String { Preflight.rounded(value) }
}

/// Cards and marks do not fit the sheet.
public struct SheetLayoutError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}

extension String {
    /// The string with every `target` replaced (FoundationEssentials has no
    /// `replacingOccurrences`).
    fileprivate func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
