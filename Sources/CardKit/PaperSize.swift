/// Paper sizes cards are printed on.
public enum PaperSize: String, Sendable, CaseIterable, Codable {
    /// 148 x 105 mm, the postcard the print shop posts.
    case a6
    /// 210 x 148 mm.
    case a5

    /// Long and short side in millimetres.
    public var millimetres: (long: Double, short: Double) {
        switch self {
        case .a6: (148, 105)
        case .a5: (210, 148)
        }
    }
}
