/// A print file cardrender made failed its own preflight: it is not written, and the card
/// is reported with the checks that failed (a defect of cardrender or of the press profile,
/// never of the customer's input).
public struct PreflightError: Error, CustomStringConvertible, Sendable {
    /// The postcard's print file, as named in the document.
    public let file: String
    /// The failed checks, one sentence each.
    public let failures: [String]

    public init(file: String, failures: [String]) {
        self.file = file
        self.failures = failures
    }

    public var description: String {
        "\(file): the press PDF failed preflight (\(failures.joined(separator: "; "))); nothing was written"
    }
}
