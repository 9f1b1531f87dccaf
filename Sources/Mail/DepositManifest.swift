import Foundation

#if canImport(FoundationEssentials)
    import FoundationEssentials
#endif

/// What a print run hands the post with its cards: one row per card in the order the cards
/// leave the press (sorted by `Destination`), where each card is on the sheets, and the
/// counts per country and per French département that a deposit is declared with.
///
/// Written as CSV (`csv()`: the rows only, for a spreadsheet or the post's deposit form) and
/// as JSON (`json()`: the rows and the counts). The recipients' names are not in it: the
/// manifest travels with the sheets, and a name needs to be on the card only.
public struct DepositManifest: Sendable, Codable, Hashable {
    /// One card.
    public struct Row: Sendable, Codable, Hashable {
        /// The card's place in the run, from 1: the order the stacks give (see `CutAndStack`).
        public let sequence: Int
        /// The card's identifier: the service's card id, or the file named on the command line.
        public let card: String
        /// ISO 3166-1 alpha-2.
        public let country: String
        public let postcode: String
        public let mailClass: MailClass
        /// The sheet the card is printed on, from 1 (the sheet of fronts and its backs).
        public let sheet: Int
        /// The card's position on its sheet, from 1, as the sheet of fronts numbers them: row
        /// by row from the top left.
        public let position: Int

        public init(
            sequence: Int, card: String, country: String, postcode: String, mailClass: MailClass, sheet: Int,
            position: Int
        ) {
            self.sequence = sequence
            self.card = card
            self.country = country
            self.postcode = postcode
            self.mailClass = mailClass
            self.sheet = sheet
            self.position = position
        }

        /// The row of card `card` going to `destination`.
        public init(sequence: Int, card: String, destination: Destination, sheet: Int, position: Int) {
            self.init(
                sequence: sequence, card: card, country: destination.country, postcode: destination.postcode,
                mailClass: destination.mailClass, sheet: sheet, position: position)
        }
    }

    /// The cards in sequence.
    public let rows: [Row]
    /// Cards per country code (cards without a country are not counted).
    public let countries: [String: Int]
    /// Cards per French département (`75`, `2A`, `971`; see
    /// `Destination.frenchDepartement(country:postcode:)`), for the cards going to France,
    /// Monaco and the French overseas.
    public let departements: [String: Int]

    /// The manifest of `rows` (in sequence), with its counts. A row with an empty country (a
    /// card without a recipient, printed but not posted) is counted in neither.
    public init(rows: [Row]) {
        self.rows = rows
        var countries: [String: Int] = [:]
        var departements: [String: Int] = [:]
        for row in rows where !row.country.isEmpty {
            countries[row.country, default: 0] += 1
            if let departement = Destination.frenchDepartement(country: row.country, postcode: row.postcode) {
                departements[departement, default: 0] += 1
            }
        }
        self.countries = countries
        self.departements = departements
    }

    /// The columns of `csv()`, in order.
    public static let csvColumns = ["sequence", "card", "country", "postcode", "mail_class", "sheet", "position"]

    /// The rows as CSV (RFC 4180): a header line (`csvColumns`), then one line per card, each
    /// ended by CR LF. A field holding a comma, a double quote, CR or LF is quoted, its quotes
    /// doubled. A field that a spreadsheet would read as a formula (starting with `=`, `+`,
    /// `-`, `@`, a tab or CR: a postcode is customer text) is written after an apostrophe,
    /// as OWASP advises against CSV injection; the JSON keeps the text as it is. No totals:
    /// the counts are in the JSON.
    public func csv() -> String {
        var text = Self.csvColumns.joined(separator: ",") + "\r\n"
        for row in rows {
            let fields = [
                String(row.sequence), row.card, row.country, row.postcode, row.mailClass.rawValue, String(row.sheet),
                String(row.position),
            ]
            text += fields.map(Self.csvField).joined(separator: ",") + "\r\n"
        }
        return text
    }

    /// One CSV field, quoted when it must be, defused when a spreadsheet would run it.
    static func csvField(_ value: String) -> String {
        var field = value
        if let first = field.unicodeScalars.first, ["=", "+", "-", "@", "\t", "\r"].contains(first) {
            field = "'" + field
        }
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else {
            return field
        }
        return "\"" + field.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    /// The manifest as JSON: `{"countries": {...}, "departements": {...}, "rows": [...]}`,
    /// each row `{"card", "country", "mailClass", "position", "postcode", "sequence",
    /// "sheet"}`; keys sorted and slashes unescaped, so the same manifest is always the same
    /// bytes.
    public func json() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(self))
        } catch {
            // Strings, integers and dictionaries of them: JSONEncoder has nothing to refuse.
            preconditionFailure("a deposit manifest could not be encoded as JSON: \(error)")
        }
    }
}
