import Foundation
import Mail
import Testing

/// The order a run's cards leave the press in, the départements a deposit is counted by, and
/// the manifest's CSV and JSON.
struct DepositManifestTests {
    static func to(_ country: String, _ postcode: String, _ name: String, _ mailClass: MailClass = .postcard)
        -> Destination
    {
        Destination(country: country, postcode: postcode, name: name, mailClass: mailClass)
    }

    @Test func destinationsSortByCountryThenPostcodeByValueThenFoldedName() {
        let sorted = [
            Self.to("DE", "10115", "Jonas"),
            Self.to("FR", "06000", "Nice"),
            Self.to("FR", "75 001", "eloise"),  // a space in a postcode does not count
            Self.to("FR", "75001", "Émile"),  // accents and case do not count: e < é-mile < z
            Self.to("FR", "75001", "Zoé"),
            Self.to("FR", "75010", "Albert"),
            Self.to("GB", "SW1A 1AA", "Downing"),  // SW1A before SW10: 1 < 10
            Self.to("GB", "SW10 0XE", "Chelsea"),
            Self.to("US", "9", "nine"),  // all digits: by value, not as text
            Self.to("US", "10", "ten"),
            Self.to("US", "1000", "thousand"),
        ]
        // Plain text order would put "Zoé" before "eloise" and "10" before "9".
        let shuffled = [
            sorted[8], sorted[4], sorted[10], sorted[1], sorted[7], sorted[2], sorted[0], sorted[9], sorted[5],
            sorted[3], sorted[6],
        ]
        #expect(shuffled.sorted() == sorted)
        #expect(sorted.reversed().sorted() == sorted)
    }

    @Test func theOrderIsTotalAndTransitiveOverMixedPostcodes() {
        // "9" < "10" by value, while "10" < "1A" < "9" as text: a comparison that mixed the two
        // would make a cycle. Digit runs compare by value wherever they are.
        let postcodes = ["9", "10", "1A", "A1", "01", "1", "SW1A", "SW10", "sw1a", "", "B", "9 9", "99", "0"]
        let destinations = postcodes.flatMap { code in
            ["anna", "Anna", "Ånna"].map { Self.to("GB", code, $0) }
        }
        for a in destinations {
            #expect(!(a < a))
            for b in destinations {
                #expect((a < b) != (b < a) || a == b, "\(a) and \(b) are not ordered")
                for c in destinations where a < b && b < c {
                    #expect(a < c, "\(a) < \(b) < \(c) but not \(a) < \(c)")
                }
            }
        }
        #expect(Self.to("GB", "01", "x") != Self.to("GB", "1", "x"))
        #expect(
            (Self.to("GB", "01", "x") < Self.to("GB", "1", "x")) != (Self.to("GB", "1", "x") < Self.to("GB", "01", "x"))
        )
        #expect(Self.to("GB", "9", "x") < Self.to("GB", "10", "x"))
        #expect(Self.to("GB", "1A", "x") < Self.to("GB", "9", "x"))
    }

    @Test func frenchDepartementsComeFromThePostcode() {
        #expect(Self.to("FR", "75001", "a").frenchDepartement == "75")
        #expect(Self.to("FR", "01000", "a").frenchDepartement == "01")
        #expect(Self.to("FR", "20000", "a").frenchDepartement == "2A")
        #expect(Self.to("FR", "20199", "a").frenchDepartement == "2A")
        #expect(Self.to("FR", "20200", "a").frenchDepartement == "2B")
        #expect(Self.to("FR", "20600", "a").frenchDepartement == "2B")
        #expect(Self.to("FR", "97110", "a").frenchDepartement == "971")
        #expect(Self.to("GP", "97110", "a").frenchDepartement == "971")
        #expect(Self.to("RE", "97400", "a").frenchDepartement == "974")
        #expect(Self.to("NC", "98800", "a").frenchDepartement == "988")
        #expect(Self.to("MC", "98000", "a").frenchDepartement == "98")
        #expect(Self.to("FR", "75 001", "a").frenchDepartement == "75")
        // Not France, or not a French postcode.
        #expect(Self.to("BE", "75001", "a").frenchDepartement == nil)
        #expect(Self.to("GB", "SW1A 1AA", "a").frenchDepartement == nil)
        #expect(Self.to("FR", "7500", "a").frenchDepartement == nil)
        #expect(Self.to("FR", "00100", "a").frenchDepartement == nil)
        #expect(Self.to("FR", "", "a").frenchDepartement == nil)
        #expect(Self.to("fr", "13001", "a").frenchDepartement == "13", "the country is upper-cased")
    }

    static let manifest = DepositManifest(rows: [
        .init(sequence: 1, card: "a.pdf", destination: to("FR", "20000", "Recipient A"), sheet: 1, position: 1),
        .init(
            sequence: 2, card: "Dupont, \"Jean\".pdf", destination: to("FR", "75001", "Recipient B"), sheet: 2,
            position: 1),
        .init(
            sequence: 3, card: "c.pdf", destination: to("FR", "75002", "Recipient C", .letter), sheet: 1, position: 2),
        .init(sequence: 4, card: "d.pdf", destination: to("GB", "=1+1", "Recipient D"), sheet: 2, position: 2),
    ])

    @Test func theCSVQuotesAsRFC4180AndDefusesFormulas() {
        let csv = Self.manifest.csv()
        #expect(
            csv == "sequence,card,country,postcode,mail_class,sheet,position\r\n"
                + "1,a.pdf,FR,20000,postcard,1,1\r\n"
                + "2,\"Dupont, \"\"Jean\"\".pdf\",FR,75001,postcard,2,1\r\n"
                + "3,c.pdf,FR,75002,letter,1,2\r\n"
                + "4,d.pdf,GB,'=1+1,postcard,2,2\r\n")
        // A line break inside a field is quoted, and the row stays one record.
        let broken = DepositManifest(rows: [
            .init(
                sequence: 1, card: "two\nlines", country: "FR", postcode: "75001", mailClass: .postcard, sheet: 1,
                position: 1)
        ])
        #expect(broken.csv().hasSuffix("\r\n1,\"two\nlines\",FR,75001,postcard,1,1\r\n"))
        #expect(!csv.contains("Recipient"), "no names in the manifest")
    }

    @Test func theJSONCarriesTheCountsAndIsStable() throws {
        let json = Self.manifest.json()
        #expect(json == Self.manifest.json())
        let decoded = try JSONDecoder().decode(DepositManifest.self, from: Data(json))
        #expect(decoded == Self.manifest)
        #expect(decoded.countries == ["FR": 3, "GB": 1])
        #expect(decoded.departements == ["2A": 1, "75": 2])
        let text = String(decoding: json, as: UTF8.self)
        #expect(
            text.hasPrefix(
                #"{"countries":{"FR":3,"GB":1},"departements":{"2A":1,"75":2},"rows":[{"card":"a.pdf","country":"FR","#
                    + #""mailClass":"postcard","position":1,"postcode":"20000","sequence":1,"sheet":1},"#), "\(text)")
        #expect(!text.contains("Recipient") && !text.contains("\"name\""), "no names in the manifest")
    }
}
