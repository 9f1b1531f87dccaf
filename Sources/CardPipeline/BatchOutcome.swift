/// One finished input of a batch, as its report lists it (`CardOutcome`, `ThumbOutcome`):
/// what it names its list and how it counts a batch of them.
public protocol BatchOutcome: Sendable, Codable {
    /// The counts a report gives over outcomes of this kind.
    associatedtype Summary: Sendable, Codable, Equatable
    /// The key the outcomes are listed under in the report's JSON (`cards`, `thumbnails`).
    static var listName: String { get }
    /// The input the outcome is for: the report lists outcomes in this order.
    var input: String { get }
    /// The counts over `outcomes`, of a batch of `total` inputs of which `missing` could not
    /// be read (named on the command line but absent: never started), in `seconds`.
    static func summary(of outcomes: [Self], total: Int, missing: Int, seconds: Double) -> Summary
}
