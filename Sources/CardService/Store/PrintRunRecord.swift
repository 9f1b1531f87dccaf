/// A print run as the database keeps it (and as an event keeps it, as JSON).
struct PrintRunRecord: Sendable, Equatable, Codable {
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
    /// When the run was handed to the post (`POST /v1/print-runs/{id}/mailed`), nil before.
    var mailed: Int? = nil
}
