import Foundation

/// The generated postal tables (`Generated/PostalData.swift`), parsed once: countries by
/// code, every name and alias by its folded form, address formats by country.
struct PostalData: Sendable {
    /// Countries by alpha-2 code.
    let countries: [String: Country]
    /// Alpha-2 code by folded code, name or alias (`matchKey`).
    let countryKeys: [String: String]
    /// Address formats by alpha-2 code (every country of Google's address metadata).
    let formats: [String: AddressFormat]

    /// The tables, parsed on first use.
    static let shared = PostalData()

    private init() {
        var countries: [String: Country] = [:]
        var keys: [String: String] = [:]
        for line in PostalTables.countryNames.split(separator: "\n") {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 6 else { continue }
            let (code, alpha3) = (columns[0], columns[1])
            let english = columns[3].isEmpty ? columns[2] : columns[3]
            let country = Country(code: code, alpha3: alpha3, englishName: english, frenchName: columns[5])
            countries[code] = country
            // Names first, codes last: a code always wins over a name that folds alike.
            for name in columns[2...] where !name.isEmpty { keys[Self.matchKey(name)] = code }
            // (Rows without a French official name end in a tab; fewer columns read as empty.)
            keys[Self.matchKey(alpha3)] = code
        }
        for line in PostalTables.aliases.split(separator: "\n") {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 2 else { continue }
            keys[Self.matchKey(columns[0])] = columns[1]
        }
        for code in countries.keys { keys[Self.matchKey(code)] = code }
        var formats: [String: AddressFormat] = [:]
        for line in PostalTables.addressFormats.split(separator: "\n") {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 13 else { continue }
            formats[columns[0]] = AddressFormat(columns: columns)
        }
        self.countries = countries
        self.countryKeys = keys
        self.formats = formats
    }

    /// A name folded for matching: lower case, no accents, letters and digits only, words
    /// joined by one space ("Royaume-Uni" -> "royaume uni", "U.K." -> "u k").
    static func matchKey(_ text: String) -> String {
        let folded = AddressText.withoutAccents(text).lowercased()
        var words: [String] = []
        var word = ""
        for character in folded {
            if character.isLetter || character.isNumber {
                word.append(character)
            } else if character == "." {
                continue  // "U.K." is "uk", "St." is "st"
            } else if !word.isEmpty {
                words.append(word)
                word = ""
            }
        }
        if !word.isEmpty { words.append(word) }
        return words.joined(separator: " ")
    }
}
