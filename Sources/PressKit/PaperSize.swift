/// Paper sizes cards are printed on.
///
/// Frames are drawn for the ISO sizes (A6, A5: sides in the ratio 1.41). On the US sizes
/// their art and photo window are scaled to the card on each axis: 4x6 in and 6x9 in (ratio
/// 1.5) stretch a frame 6 % along the long side, 5x7 in (1.4) by 1 %.
public enum PaperSize: String, Sendable, CaseIterable, Codable {
    /// 148 x 105 mm, the postcard the print shop posts.
    case a6
    /// 210 x 148 mm.
    case a5
    /// 6 x 4 in (152.4 x 101.6 mm), the US postcard (Lob's and USPS's standard card).
    case inches4x6 = "4x6in"
    /// 7 x 5 in (177.8 x 127 mm).
    case inches5x7 = "5x7in"
    /// 9 x 6 in (228.6 x 152.4 mm), the largest US postcard rate size.
    case inches6x9 = "6x9in"

    /// Long and short side in millimetres.
    public var millimetres: (long: Double, short: Double) {
        switch self {
        case .a6: (148, 105)
        case .a5: (210, 148)
        case .inches4x6: (152.4, 101.6)
        case .inches5x7: (177.8, 127)
        case .inches6x9: (228.6, 152.4)
        }
    }
}
