/// A print run as the database keeps it.
struct PrintRunRecord: Sendable, Equatable {
    let id: String
    let owner: String
    let press: String
    let sheet: String
    /// The cards in the order they leave the press: sorted by destination, the order the
    /// cut-and-stack sheets give once cut and stacked (`CutAndStack`).
    let cards: [String]
    /// The content store keys of the sheets' PDFs, one per sheet.
    let sheets: [String]
    /// The content store key of the deposit manifest (parts `json` and `csv`); nil for a run
    /// recorded before runs kept one.
    var manifest: String?
}
