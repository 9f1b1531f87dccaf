/// An address as postal data: the fields the posts' own address formats are written with
/// (Google's libaddressinput names in brackets), for a recipient or a sender.
///
/// Text is kept as the customer typed it; `AddressBlock` writes it out in the order, case
/// and script the destination's post expects.
public struct PostalAddress: Sendable, Equatable, Hashable, Codable {
    /// The person (`N`).
    public var name: String
    /// A company or organisation (`O`).
    public var organisation: String?
    /// Street, number, building, flat: one to three lines (`A`).
    public var addressLines: [String]
    /// A district or village within the locality (`D`: "dependent locality").
    public var dependentLocality: String?
    /// The city or post town (`C`: "locality").
    public var locality: String?
    /// A state, province, county or prefecture (`S`: "administrative area").
    public var region: String?
    /// The postcode (`Z`).
    public var postcode: String?
    /// A sorting code (`X`): France's CEDEX, for instance.
    public var sortingCode: String?
    /// The destination country: an ISO 3166-1 alpha-2 code once read from a spec; any name
    /// `Country.resolve` knows is accepted where an address is made in code.
    public var country: String

    /// The most street lines an address may have.
    public static let maxAddressLines = 3

    public init(
        name: String, organisation: String? = nil, addressLines: [String], dependentLocality: String? = nil,
        locality: String?, region: String? = nil, postcode: String?, sortingCode: String? = nil, country: String
    ) {
        self.name = name
        self.organisation = organisation
        self.addressLines = addressLines
        self.dependentLocality = dependentLocality
        self.locality = locality
        self.region = region
        self.postcode = postcode
        self.sortingCode = sortingCode
        self.country = country
    }

    /// The fields of the first card specs: one or two street lines, postcode, city, country.
    public init(
        name: String, address1: String, address2: String? = nil, postcode: String, city: String, country: String
    ) {
        self.init(
            name: name, addressLines: [address1] + (address2.map { [$0] } ?? []), locality: city, postcode: postcode,
            country: country)
    }

    /// Every field as (spec field name, text), the street lines as `address1`...`address3`:
    /// what limits, checks and errors walk.
    public var fields: [(name: String, text: String)] {
        var fields: [(String, String)] = [("name", name)]
        if let organisation { fields.append(("organisation", organisation)) }
        for (index, line) in addressLines.enumerated() { fields.append(("address\(index + 1)", line)) }
        let optional: [(String, String?)] = [
            ("dependentLocality", dependentLocality), ("city", locality), ("region", region),
            ("postcode", postcode), ("sortingCode", sortingCode),
        ]
        for (field, text) in optional { if let text { fields.append((field, text)) } }
        fields.append(("country", country))
        return fields
    }
}
