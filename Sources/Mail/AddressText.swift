import Foundation

/// The text transformations of postal addressing.
enum AddressText {
    /// Capitals without accents, as AFNOR NF Z10-011 writes the last lines of an address:
    /// "Évry-Courcouronnes" -> "EVRY-COURCOURONNES". Only Latin combining accents are
    /// removed (U+0300-U+036F), so kana and Hangul keep their marks.
    static func capitalsWithoutAccents(_ text: String) -> String {
        withoutAccents(text).uppercased()
    }

    /// `text` without Latin combining accents, recomposed.
    static func withoutAccents(_ text: String) -> String {
        let scalars = text.decomposedStringWithCanonicalMapping.unicodeScalars.filter {
            !(0x300...0x36F).contains($0.value)
        }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars)
        return String(result).precomposedStringWithCanonicalMapping
    }

    /// `text` without the punctuation AFNOR keeps out of an address's lower lines (commas,
    /// full stops, semicolons, colons, quotes, brackets...); hyphens and apostrophes stay, as in
    /// "SAINT-ETIENNE" and "L'ISLE". Spaces left doubled are closed up.
    static func withoutPunctuation(_ text: String) -> String {
        let removed: Set<Character> = [
            ",", ".", ";", ":", "!", "?", "\"", "«", "»", "(", ")", "[", "]", "/", "\\", "_",
        ]
        let kept = String(text.map { removed.contains($0) ? " " : $0 })
        return kept.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    /// Whether `text` has a letter outside the Latin script (CJK, Hangul, kana, Cyrillic,
    /// Greek, Arabic, Hebrew, Thai...): such an address is written in the local format.
    static func hasNonLatinLetters(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            scalar.properties.isAlphabetic && scalar.value >= 0x370
                && !(0x1E00...0x1EFF).contains(scalar.value)  // Latin Extended Additional (Vietnamese)
        }
    }
}
