/// Why an address cannot be written on a card, for a person: the field it is in and what to
/// do. The caller says whose address it is ("recipient 2", "the sender") and the field's
/// path for programs (`recipients[1].postcode`).
public struct AddressProblem: Error, Sendable, Equatable {
    /// The spec field name within the address (`postcode`, `address2`...), or nil for the
    /// address as a whole (too many lines).
    public let field: String?
    /// A sentence (or two) that starts after "recipient 2, postcode: ".
    public let problem: String

    public init(field: String?, problem: String) {
        self.field = field
        self.problem = problem
    }

    /// The words a person reads: "recipient 2, postcode: ..." for `owner` "recipient 2".
    public func sentence(owner: String) -> String {
        "\(owner), \(field.map(Self.label) ?? "address"): \(problem)"
    }

    /// A field's name in words: `address2` -> "address line 2".
    public static func label(_ field: String) -> String {
        switch field {
        case "address1", "address2", "address3": "address line \(field.last!)"
        case "dependentLocality": "district"
        case "sortingCode": "sorting code"
        default: field
        }
    }
}
