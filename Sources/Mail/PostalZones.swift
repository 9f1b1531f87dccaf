/// The zones of a postcard's address side, in millimetres from the top left of the trimmed
/// card, landscape (y down), as the posts define them (see `docs/mail.md` for sources):
///
/// - the **address side**, the right half at least (UPU); the message keeps to the left;
/// - the **franking zone**, 74 x 40 mm in the top right corner, for the stamp and the
///   postmark: nothing in it but the stamp box;
/// - the **coding strip**, 140 x 15 mm along the bottom from the right corner, where sorting
///   machines print their barcode: no ink at all;
/// - the **address zone**, bottom right: at least 15 mm from the right and bottom edges and
///   below the franking zone (40 mm from the top).
public struct PostalZones: Sendable, Equatable {
    /// A rectangle in millimetres.
    public struct Rect: Sendable, Equatable {
        public var x: Double, y: Double, width: Double, height: Double
        public var maxX: Double { x + width }
        public var maxY: Double { y + height }

        public init(x: Double, y: Double, width: Double, height: Double) {
            (self.x, self.y, self.width, self.height) = (x, y, width, height)
        }
    }

    /// The card's long and short sides.
    public let width: Double, height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// The margin kept round the card's edges by the rules, the stamp box and the message.
    public static let margin = 6.0
    /// Between the divider and the text on either side of it.
    public static let gutter = 3.0

    /// Where the back is divided: 2 mm left of the middle, so the address side is more than
    /// the right half.
    public var divider: Double { width / 2 - 2 }
    /// The address side: from the divider to the right edge.
    public var addressSide: Rect { Rect(x: divider, y: 0, width: width - divider, height: height) }
    /// 74 x 40 mm, top right.
    public var frankingZone: Rect { Rect(x: width - 74, y: 0, width: 74, height: 40) }
    /// 24 x 30 mm, 6 mm from the top and right edges, inside the franking zone.
    public var stampBox: Rect { Rect(x: width - Self.margin - 24, y: Self.margin, width: 24, height: 30) }
    /// 140 x 15 mm from the bottom right corner (the whole bottom on a card narrower).
    public var codingStrip: Rect {
        let stripWidth = min(140, width)
        return Rect(x: width - stripWidth, y: height - 15, width: stripWidth, height: 15)
    }
    /// Where the address block may be: from the middle of the card to 15 mm from the right,
    /// from the franking zone's bottom (40 mm) to the coding strip (15 mm from the bottom).
    public var addressZone: Rect {
        let left = width / 2
        return Rect(x: left, y: 40, width: width - 15 - left, height: height - 15 - 40)
    }
    /// Where the message may be: the left half, above the coding strip.
    public var messageArea: Rect {
        Rect(
            x: Self.margin, y: Self.margin, width: divider - Self.gutter - Self.margin,
            height: height - 15 - 2 - Self.margin)
    }
    /// The vertical divider: from the top margin to just above the coding strip.
    public var dividerRule: Rect { Rect(x: divider, y: Self.margin, width: 0.4, height: height - 15 - 2 - Self.margin) }
}
