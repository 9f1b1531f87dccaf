import Foundation

/// A country or territory as the post knows it: its ISO 3166-1 code and its names.
public struct Country: Sendable, Equatable, Hashable {
    /// ISO 3166-1 alpha-2, e.g. `GB`.
    public let code: String
    /// ISO 3166-1 alpha-3, e.g. `GBR`.
    public let alpha3: String
    /// The English name (ISO's common name where it has one), e.g. "United Kingdom".
    public let englishName: String
    /// The name a French post office writes on the country line, before capitals: ISO's
    /// French name, or a postal override where ISO's reads "Corée, République de".
    public let frenchName: String

    /// The country with this alpha-2 code, if there is one.
    public static func named(code: String) -> Country? { PostalData.shared.countries[code.uppercased()] }

    /// Reads a country as a customer writes it: an alpha-2 or alpha-3 code, or a name in
    /// English or French (ISO's names, their everyday forms and common abbreviations: "UK",
    /// "United Kingdom" and "Royaume-Uni" are all `GB`). Case, accents, punctuation and
    /// spacing do not matter.
    /// - Throws: `CountryError` with the nearest known names as suggestions.
    public static func resolve(_ text: String) throws(CountryError) -> Country {
        let data = PostalData.shared
        let key = PostalData.matchKey(text)
        if let code = data.countryKeys[key], let country = data.countries[code] { return country }
        throw CountryError(received: text, suggestions: suggestions(for: key))
    }

    /// The country line as the post of `postedFrom` writes it: the full name in capitals,
    /// without accents (AFNOR NF Z10-011: the last lines in capitals, unaccented), in the
    /// language of the country of posting (French for France and Francophone posts, English
    /// elsewhere).
    public func countryLine(postedFrom origin: Country) -> String {
        let name = origin.writesFrench ? frenchName : englishName
        return AddressText.capitalsWithoutAccents(name)
    }

    /// La Poste's territory: metropolitan France, the overseas départements and collectivities
    /// with French postcodes (97x), and Monaco (980xx, in La Poste's network): mail between
    /// them is domestic (no country line), and their addresses follow AFNOR NF Z10-011.
    public static let laPoste: Set<String> = ["FR", "GP", "MQ", "GF", "RE", "YT", "PM", "BL", "MF", "MC"]

    /// Whether a card to this country posted in `origin` is domestic mail: the same country,
    /// or both in La Poste's territory.
    public func isDomestic(postedFrom origin: Country) -> Bool {
        code == origin.code || (Self.laPoste.contains(code) && Self.laPoste.contains(origin.code))
    }

    /// Whether this country's post writes the country line in French: France and its overseas
    /// territories, Monaco, Belgium, Luxembourg and Switzerland (which also read English,
    /// German, Dutch or Italian; French is one of their official languages); English elsewhere.
    public var writesFrench: Bool { Self.frenchSpeaking.contains(code) }

    /// Posts whose country line is written in French.
    static let frenchSpeaking: Set<String> = [
        "FR", "MC", "BE", "LU", "CH", "GP", "MQ", "GF", "RE", "YT", "PM", "NC", "PF", "WF", "BL", "MF",
    ]

    /// Up to three names nearest `key` (edit distance over folded names).
    private static func suggestions(for key: String) -> [String] {
        // No country name is longer than 60 letters: a longer text has no near name, and
        // comparing it with every name would cost its length times theirs, a thousand times.
        guard !key.isEmpty, key.count <= 60 else { return [] }
        let data = PostalData.shared
        var best: [(distance: Int, name: String)] = []
        for (candidate, code) in data.countryKeys where candidate.count > 2 && abs(candidate.count - key.count) <= 20 {
            let distance = editDistance(Array(key), Array(candidate))
            guard distance <= max(2, key.count / 3), let country = data.countries[code] else { continue }
            let name = "\(country.englishName) (\(country.code))"
            if let index = best.firstIndex(where: { $0.name == name }) {
                best[index].distance = min(best[index].distance, distance)
            } else {
                best.append((distance, name))
            }
        }
        return best.sorted { ($0.distance, $0.name) < ($1.distance, $1.name) }.prefix(3).map(\.name)
    }

    /// Levenshtein distance.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// A country that no code, name or abbreviation matches.
public struct CountryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was written.
    public let received: String
    /// The nearest known names, e.g. "United Kingdom (GB)".
    public let suggestions: [String]

    /// "is not a country we know"... as the end of a sentence that names the field.
    public var description: String {
        let start = "\"\(received)\" is not a country or territory we know"
        guard !suggestions.isEmpty else {
            return start + "; write its name in English or French, or its ISO 3166-1 code (e.g. GB, DE, US)."
        }
        return start + "; did you mean " + suggestions.joined(separator: " or ") + "?"
    }
}
