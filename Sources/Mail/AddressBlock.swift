import Foundation

/// An address written out for its destination, line by line: the destination's order and
/// capitals (libaddressinput's format for the country, in the local script or in Latin
/// letters as the address is written), the country alone on the last line in the language
/// of the country of posting, absent for domestic mail; checked against the destination's
/// required fields and postcode pattern and against AFNOR NF Z10-011's limits (six lines, seven
/// abroad, 38 characters a line).
public struct AddressBlock: Sendable, Equatable {
    /// One printed line and the spec fields it holds.
    public struct Line: Sendable, Equatable {
        public var text: String
        /// Spec field names within the address (`name`, `postcode`, `city`, `country`...).
        public var fields: [String]

        public init(text: String, fields: [String]) {
            self.text = text
            self.fields = fields
        }
    }

    /// The lines, top to bottom.
    public let lines: [Line]
    /// Where the card goes.
    public let destination: Country
    /// The postcode as written on the card (capitals, single spaces; none in La Poste's), if any.
    public let postcode: String?
    /// What the destination's post asks for that the address lacks but can do without (a US
    /// address without its state: the ZIP code routes it): the card is made, and says so.
    public let warnings: [AddressProblem]
    /// Whether it is posted in its destination country (no country line).
    public var isDomestic: Bool { lines.last?.fields != ["country"] }

    /// Characters on one line at most (AFNOR NF Z10-011).
    public static let maxCharacters = 38
    /// Lines at most for domestic mail; one more (the country) abroad.
    public static let maxLines = 6

    /// Writes `address` for its destination, posted from `origin`.
    /// - Throws: `AddressProblem` naming the field: an unknown country, a missing required
    ///   field, a postcode that is not the destination's, too many lines or characters.
    public init(_ address: PostalAddress, postedFrom origin: Country) throws(AddressProblem) {
        let destination: Country
        do {
            destination = try Country.resolve(address.country)
        } catch {
            throw AddressProblem(field: "country", problem: error.description)
        }
        let format = AddressFormat.of(code: destination.code)
        let warnings = try Self.checkRequired(address, format: format, country: destination)
        let postcode = try Self.checkedPostcode(address, format: format, country: destination)
        let isFrench = Country.laPoste.contains(destination.code)
        let isDomestic = destination.isDomestic(postedFrom: origin)
        let written = address.fields.map(\.text).joined()
        let pattern = Self.completed(
            AddressText.hasNonLatinLetters(written) ? format.format : (format.latinFormat ?? format.format))

        var lines: [Line] = []
        var reachedStreet = false
        for formatLine in pattern.components(separatedBy: "%n") {
            for var line in Self.lines(of: formatLine, address: address, postcode: postcode, format: format) {
                if line.fields.contains(where: { $0.hasPrefix("address") }) { reachedStreet = true }
                if isFrench {
                    // AFNOR: no punctuation from the street line down; the capital lines unaccented.
                    if reachedStreet { line.text = AddressText.withoutPunctuation(line.text) }
                    if line.text == line.text.uppercased() { line.text = AddressText.withoutAccents(line.text) }
                }
                if !line.text.isEmpty { lines.append(line) }
            }
        }
        if !isDomestic {
            lines.append(Line(text: destination.countryLine(postedFrom: origin), fields: ["country"]))
        }
        let allowed = Self.maxLines + (isDomestic ? 0 : 1)
        guard lines.count <= allowed else {
            throw AddressProblem(
                field: nil,
                problem: "it takes \(lines.count) lines and an address holds \(allowed)"
                    + (allowed > Self.maxLines ? " abroad (the country's line included)" : "")
                    + "; join or leave out the extra address lines.")
        }
        // The country line is the post's own words (its length checked when the tables are made).
        for line in lines where line.text.count > Self.maxCharacters && line.fields != ["country"] {
            let field = line.fields.max { a, b in
                (address.fields.first { $0.name == a }?.text.count ?? 0)
                    < (address.fields.first { $0.name == b }?.text.count ?? 0)
            }
            let what =
                line.fields.count == 1
                ? "\(line.text.count) characters" : "the line \"\(line.text)\" has \(line.text.count) characters"
            throw AddressProblem(
                field: field,
                problem: "\(what); an address line holds \(Self.maxCharacters). "
                    + "Shorten it to \(Self.maxCharacters) characters.")
        }
        self.lines = lines
        self.destination = destination
        self.warnings = warnings
        self.postcode = postcode
    }

    /// `format` with a place for every field: a sorting code after the locality (France's
    /// CEDEX, missing from its metadata's format) and a district on its own line above it
    /// (AFNOR's line 5, the lieu-dit), where the country's format has none; a city where the
    /// format writes it in the address lines (Japan, Singapore...) on its own line before them.
    private static func completed(_ format: String) -> String {
        var lines = format.components(separatedBy: "%n")
        if !format.contains("%C"), let street = lines.firstIndex(where: { $0.contains("%A") }) {
            lines.insert("%C", at: street)
        }
        guard let locality = lines.firstIndex(where: { $0.contains("%C") }) else { return format }
        if !format.contains("%X") { lines[locality] += " %X" }
        if !format.contains("%D") { lines.insert("%D", at: locality) }
        return lines.joined(separator: "%n")
    }

    /// The required fields of `format` that `address` leaves empty: the name, the street, the
    /// city and the postcode are refused; a region, district, organisation or sorting code the
    /// post asks for but routes without (the first specs had no region) is a warning.
    private static func checkRequired(_ address: PostalAddress, format: AddressFormat, country: Country)
        throws(AddressProblem) -> [AddressProblem]
    {
        func empty(_ text: String?) -> Bool { (text ?? "").allSatisfy(\.isWhitespace) }
        let present: [Character: Bool] = [
            "N": !empty(address.name), "O": !empty(address.organisation),
            "A": !empty(address.addressLines.first), "D": !empty(address.dependentLocality),
            "C": !empty(address.locality), "S": !empty(address.region),
            "Z": !empty(address.postcode), "X": !empty(address.sortingCode),
        ]
        let names: [Character: (field: String, words: String)] = [
            "N": ("name", "a name"), "O": ("organisation", "an organisation"),
            "A": ("address1", "a street address"), "D": ("dependentLocality", "a district"),
            "C": ("city", "a \(format.localityName.replacingOccurrences(of: "_", with: " "))"),
            "S": ("region", "a \(format.regionName.replacingOccurrences(of: "_", with: " "))"),
            "Z": ("postcode", "a \(format.postcodeName == "zip" ? "ZIP code" : "postcode")"),
            "X": ("sortingCode", "a sorting code"),
        ]
        var warnings: [AddressProblem] = []
        for letter in "NACZSDOX" where (format.required.contains(letter) || letter == "N") && present[letter] == false {
            guard let name = names[letter] else { continue }
            let problem = AddressProblem(
                field: name.field, problem: "an address in \(country.englishName) needs \(name.words); add it.")
            guard "SDOX".contains(letter) else { throw problem }
            warnings.append(problem)
        }
        return warnings
    }

    /// The postcode in capitals with single spaces, checked against the destination's pattern.
    private static func checkedPostcode(_ address: PostalAddress, format: AddressFormat, country: Country)
        throws(AddressProblem) -> String?
    {
        guard let given = address.postcode, !given.allSatisfy(\.isWhitespace) else { return nil }
        // Fullwidth and other compatibility forms read as ASCII ("７５００１" is 75001); other
        // digits (Arabic-Indic...) are not a postcode the post's machines read.
        var postcode = given.precomposedStringWithCompatibilityMapping.uppercased()
            .split(separator: " ").joined(separator: " ")
        // La Poste's postcodes are five digits with no space (AFNOR NF Z10-011).
        if Country.laPoste.contains(country.code) { postcode = postcode.replacingOccurrences(of: " ", with: "") }
        let example = format.postcodeExamples.first.map { "; it is written like \($0)" } ?? ""
        guard postcode.unicodeScalars.allSatisfy(\.isASCII) else {
            throw AddressProblem(
                field: "postcode", problem: "\"\(given)\" is not a postcode of \(country.englishName)\(example).")
        }
        guard let pattern = format.postcodePattern, let regex = try? Regex(pattern) else { return postcode }
        guard (try? regex.wholeMatch(in: postcode)) ?? nil != nil else {
            throw AddressProblem(
                field: "postcode", problem: "\"\(given)\" is not a postcode of \(country.englishName)\(example).")
        }
        return postcode
    }

    /// The printed lines of one line of a format (`%A` gives one line per street line).
    private static func lines(
        of formatLine: String, address: PostalAddress, postcode: String?, format: AddressFormat
    ) -> [Line] {
        var segments: [(literal: String?, field: Character?)] = []
        var literal = ""
        var iterator = formatLine.makeIterator()
        while let character = iterator.next() {
            if character == "%", let letter = iterator.next() {
                if !literal.isEmpty { segments.append((literal, nil)) }
                literal = ""
                segments.append((nil, letter))
            } else {
                literal.append(character)
            }
        }
        if !literal.isEmpty { segments.append((literal, nil)) }

        if segments.contains(where: { $0.field == "A" }) {
            // The street lines stand alone in every format but a few that add text around them
            // (Japan's Latin format "%A, %S"): the first lines alone, the last with the rest.
            let streets = address.addressLines.filter { !$0.isEmpty }
            let upper = format.upper.contains("A")
            var result = streets.dropLast().enumerated().map { index, text in
                Line(text: upper ? text.uppercased() : text, fields: ["address\(index + 1)"])
            }
            let last = streets.last.map { (text: $0, field: "address\(streets.count)") }
            result.append(
                render(segments, address: address, postcode: postcode, format: format, street: last))
            return result
        }
        return [render(segments, address: address, postcode: postcode, format: format, street: nil)]
    }

    /// One line from its segments: empty fields left out with the literal text that joins them.
    private static func render(
        _ segments: [(literal: String?, field: Character?)], address: PostalAddress, postcode: String?,
        format: AddressFormat, street: (text: String, field: String)?
    ) -> Line {
        func value(_ letter: Character) -> (text: String, field: String)? {
            let pair: (String?, String) =
                switch letter {
                case "N": (address.name, "name")
                case "O": (address.organisation, "organisation")
                case "A": (street?.text, street?.field ?? "address1")
                case "D": (address.dependentLocality, "dependentLocality")
                case "C": (address.locality, "city")
                case "S": (address.region, "region")
                case "Z": (postcode, "postcode")
                case "X": (address.sortingCode, "sortingCode")
                default: (nil, "")
                }
            guard let text = pair.0?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return (format.upper.contains(letter) ? text.uppercased() : text, pair.1)
        }
        // Keep a literal only between two present fields, or before the first present field
        // when it opens the line (Japan's "〒" before the postcode).
        var parts: [(text: String, isField: Bool)] = []
        var fields: [String] = []
        var pendingLiteral: String?
        for (index, segment) in segments.enumerated() {
            if let literal = segment.literal {
                pendingLiteral = (pendingLiteral ?? "") + literal
                continue
            }
            guard let letter = segment.field, let found = value(letter) else {
                // A missing field takes the text that joined it with you: "%C, %S %Z" without
                // the region is "CITY ZIP", not "CITY,  ZIP".
                pendingLiteral = nil
                continue
            }
            if let literal = pendingLiteral, parts.isEmpty ? index == 1 : true { parts.append((literal, false)) }
            pendingLiteral = nil
            parts.append((found.text, true))
            fields.append(found.field)
        }
        let text = parts.map(\.text).joined().trimmingCharacters(in: .whitespaces)
        return Line(text: text, fields: fields)
    }
}
