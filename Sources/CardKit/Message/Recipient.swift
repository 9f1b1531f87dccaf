/// One addressee of a card; one verso is printed per recipient.
public struct Recipient: Sendable, Equatable, Hashable, Codable {
    public var name: String
    public var address1: String
    public var address2: String?
    public var postcode: String
    public var city: String
    public var country: String

    public init(
        name: String, address1: String, address2: String? = nil, postcode: String, city: String, country: String
    ) {
        self.name = name
        self.address1 = address1
        self.address2 = address2
        self.postcode = postcode
        self.city = city
        self.country = country
    }

    /// The address as printed, one line each.
    public var lines: [String] {
        [name, address1] + (address2.map { [$0] } ?? []) + ["\(postcode) \(city)", country.uppercased()]
    }
}
