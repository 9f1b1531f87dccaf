import Foundation

#if canImport(FoundationEssentials)
    import FoundationEssentials
#endif

/// Where one card goes, as the post sorts it: the country, the postcode, the recipient's
/// name and the mail class. A print run orders its cards by destination so that the cards
/// leave the press in the order the deposit is made (`DepositManifest`).
///
/// The order (`<`) is: the country code; then the postcode, with runs of digits compared by
/// their value (so all-digit postcodes compare numerically, "9" before "10", and "SW1A"
/// before "SW10") and the rest as folded text (case, accents and spaces ignored); then the
/// name, folded the same way. Comparing digit runs by value wherever they are, not only when
/// both postcodes are all digits, keeps the order transitive: "9" < "10" numerically, but
/// "10" < "1A" < "9" as text would make a cycle that no sort can honour. Equal folded values
/// are then told apart by the exact text and the mail class, so the order is total and a
/// sort gives the same cards in the same order on every machine.
public struct Destination: Sendable, Hashable, Codable, Comparable {
    /// ISO 3166-1 alpha-2 code (`FR`), upper case.
    public let country: String
    /// The postcode as written (`75001`, `SW1A 1AA`); empty where the country has none.
    public let postcode: String
    /// The recipient's name (sorted on, never printed into a sheet's metadata or the manifest).
    public let name: String
    /// How the post carries the card.
    public let mailClass: MailClass

    /// A destination; `country` is stored upper case and the postcode without the spaces
    /// around it.
    public init(country: String, postcode: String, name: String, mailClass: MailClass) {
        self.country = country.uppercased()
        self.postcode = Self.trimmed(postcode)
        self.name = Self.trimmed(name)
        self.mailClass = mailClass
    }

    /// The French département of this destination, for the counts of a deposit at La Poste:
    /// see `frenchDepartement(country:postcode:)`.
    public var frenchDepartement: String? { Self.frenchDepartement(country: country, postcode: postcode) }

    /// Countries whose post is La Poste's domestic network, with French five-digit postcodes:
    /// France, Monaco and the overseas departments and collectivities (which ISO 3166-1 gives
    /// codes of their own).
    public static let frenchPostcodeCountries: Set<String> = [
        "FR", "MC", "GP", "MQ", "GF", "RE", "PM", "YT", "BL", "MF", "TF", "WF", "PF", "NC",
    ]

    /// The French département a postcode belongs to, or nil outside `frenchPostcodeCountries`
    /// or for a postcode that is not five digits of a département:
    /// - the first two digits in metropolitan France, `01` to `95` (`75001` -> `75`);
    /// - Corsica, whose postcodes all start with 20: `2A` (Corse-du-Sud) for 20000-20199,
    ///   `2B` (Haute-Corse) for 20200-20999;
    /// - overseas, three digits: `971` Guadeloupe ... `976` Mayotte, `977` Saint-Barthélemy,
    ///   `978` Saint-Martin, `984` TAAF, `986` Wallis-et-Futuna, `987` French Polynesia,
    ///   `988` New Caledonia (`97110` -> `971`);
    /// - Monaco, whose postcodes are 980xx in La Poste's network: `98` (not a département,
    ///   but the line La Poste's deposit counts give it), whatever the country was written as.
    ///
    /// Spaces in the postcode are ignored (`75 001`).
    public static func frenchDepartement(country: String, postcode: String) -> String? {
        guard frenchPostcodeCountries.contains(country.uppercased()) else { return nil }
        let digits = Array(postcode.unicodeScalars.filter { $0 != " " && $0 != "\u{A0}" })
        guard digits.count == 5, digits.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        let text = String(String.UnicodeScalarView(digits))
        let two = String(text.prefix(2))
        switch two {
        case "20":
            return Int(text)! < 20200 ? "2A" : "2B"
        case "97":
            return String(text.prefix(3))
        case "98":
            let three = String(text.prefix(3))
            return three == "980" ? "98" : three
        case "00", "96", "99":
            return nil
        default:
            return two
        }
    }

    // MARK: order

    public static func < (left: Destination, right: Destination) -> Bool {
        order(left, right) == .orderedAscending
    }

    /// The order described on the type: ascending when `left` sorts first.
    public static func order(_ left: Destination, _ right: Destination) -> ComparisonResult {
        if left.country != right.country {
            return left.country < right.country ? .orderedAscending : .orderedDescending
        }
        for (a, b) in [(left.postcode, right.postcode), (left.name, right.name)] {
            let result = compareFolded(a, b)
            if result != .orderedSame { return result }
        }
        // Equal when folded: the exact text, then the class, decide (a total order).
        for (a, b) in [(left.postcode, right.postcode), (left.name, right.name)] where a != b {
            return a < b ? .orderedAscending : .orderedDescending
        }
        if left.mailClass != right.mailClass {
            return left.mailClass.rawValue < right.mailClass.rawValue ? .orderedAscending : .orderedDescending
        }
        return .orderedSame
    }

    /// One piece of a folded text: a run of ASCII digits (by value) or of anything else.
    private enum Piece: Comparable {
        /// The digits without leading zeros (compared by length, then text: any length).
        case number(String)
        case text(String)

        static func < (left: Piece, right: Piece) -> Bool {
            switch (left, right) {
            case (.number(let a), .number(let b)): return a.count != b.count ? a.count < b.count : a < b
            case (.number, .text): return true
            case (.text, .number): return false
            case (.text(let a), .text(let b)): return a < b
            }
        }
    }

    /// `a` and `b` folded (`fold`) and compared piece by piece: digit runs by value, the rest
    /// as text; a text that is a prefix of the other sorts first.
    static func compareFolded(_ a: String, _ b: String) -> ComparisonResult {
        let left = pieces(fold(a)), right = pieces(fold(b))
        for (x, y) in zip(left, right) where x != y {
            return x < y ? .orderedAscending : .orderedDescending
        }
        if left.count != right.count { return left.count < right.count ? .orderedAscending : .orderedDescending }
        return .orderedSame
    }

    /// `text` lower case, without Latin accents and without spaces: "Élodie  Durand" and
    /// "elodie durand" fold alike, as "SW1A 1AA" and "sw1a1aa" do.
    static func fold(_ text: String) -> String {
        String(AddressText.withoutAccents(text).lowercased().filter { !$0.isWhitespace })
    }

    private static func pieces(_ text: String) -> [Piece] {
        var pieces: [Piece] = []
        var current = "", inDigits = false
        func flush() {
            guard !current.isEmpty else { return }
            if inDigits {
                let value = current.drop { $0 == "0" }
                pieces.append(.number(value.isEmpty ? "0" : String(value)))
            } else {
                pieces.append(.text(current))
            }
            current = ""
        }
        for character in text {
            let digit = character.isASCII && character.isNumber
            if digit != inDigits {
                flush()
                inDigits = digit
            }
            current.append(character)
        }
        flush()
        return pieces
    }

    private static func trimmed(_ text: String) -> String {
        String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
