import Mail
import Testing

/// The address written for its destination: line order, capitals, country line, limits.
struct AddressBlockTests {
    static let france = Country.named(code: "FR")!

    func lines(_ address: PostalAddress, from origin: String = "FR") throws -> [String] {
        try AddressBlock(address, postedFrom: #require(Country.named(code: origin))).lines.map(\.text)
    }

    @Test func aLondonAddressIsWrittenTheBritishWay() throws {
        let address = PostalAddress(
            name: "Sherlock Holmes", addressLines: ["221B Baker Street"], locality: "London", postcode: "nw1 6xe",
            country: "UK")
        let block = try AddressBlock(address, postedFrom: Self.france)
        #expect(
            block.lines.map(\.text) == ["Sherlock Holmes", "221B Baker Street", "LONDON", "NW1 6XE", "ROYAUME-UNI"])
        #expect(block.destination.code == "GB")
        #expect(!block.isDomestic)
        // From Britain the same card is domestic; from Germany the country line is in English.
        #expect(try lines(address, from: "GB").last == "NW1 6XE")
        #expect(try lines(address, from: "DE").last == "UNITED KINGDOM")
    }

    @Test func anAmericanAddressPutsCityStateAndZIPOnOneLine() throws {
        let address = PostalAddress(
            name: "John Smith", addressLines: ["1600 Amphitheatre Parkway"], locality: "Mountain View", region: "CA",
            postcode: "94043", country: "United States")
        #expect(
            try lines(address) == [
                "John Smith", "1600 Amphitheatre Parkway", "MOUNTAIN VIEW, CA 94043", "ETATS-UNIS",
            ])
    }

    @Test func aFrenchAddressFollowsAFNOR() throws {
        let address = PostalAddress(
            name: "Mme Martine Durand-Lefebvre", organisation: "Mairie", addressLines: ["12, rue de l'Église"],
            locality: "Évry-Courcouronnes", postcode: "91000", sortingCode: "Cedex", country: "fr")
        // Domestic: no country line; no punctuation from the street line down; the last
        // line in capitals without accents.
        #expect(
            try lines(address) == [
                "Mairie", "Mme Martine Durand-Lefebvre", "12 rue de l'Église", "91000 EVRY-COURCOURONNES CEDEX",
            ])
        // 38 characters fit; 39 do not, named in words.
        var long = address
        long.name = String(repeating: "a", count: 38)
        #expect(try lines(long)[1].count == 38)
        long.name += "b"
        let error = #expect(throws: AddressProblem.self) { try lines(long) }
        #expect(error?.field == "name")
        #expect(
            error?.sentence(owner: "recipient 2")
                == "recipient 2, name: 39 characters; an address line holds 38. Shorten it to 38 characters.")
    }

    @Test func japanIsWrittenInItsOwnOrderInItsScriptAndInLatinOtherwise() throws {
        let local = PostalAddress(
            name: "山田太郎", addressLines: ["千代田区丸の内1-1"], locality: nil, region: "東京都", postcode: "100-0005",
            country: "JP")
        #expect(try lines(local) == ["〒100-0005", "東京都", "千代田区丸の内1-1", "山田太郎", "JAPON"])
        let latin = PostalAddress(
            name: "Taro Yamada", addressLines: ["1-1 Marunouchi, Chiyoda-ku"], locality: nil, region: "Tokyo",
            postcode: "100-0005", country: "Japan")
        let written = try lines(latin)
        #expect(written == ["Taro Yamada", "1-1 Marunouchi, Chiyoda-ku, TOKYO", "100-0005", "JAPON"], "\(written)")
    }

    @Test func countriesAreReadInEnglishFrenchAndAsCodes() throws {
        for (text, code) in [
            ("UK", "GB"), ("United Kingdom", "GB"), ("Royaume-Uni", "GB"), ("royaume uni", "GB"), ("GBR", "GB"),
            ("Allemagne", "DE"), ("Germany", "DE"), ("États-Unis", "US"), ("USA", "US"), ("Corée du Sud", "KR"),
            ("South Korea", "KR"), ("Côte d'Ivoire", "CI"), ("ie", "IE"), ("Belgique", "BE"),
        ] {
            #expect(try Country.resolve(text).code == code, "\(text)")
        }
        #expect(Country.named(code: "KR")?.countryLine(postedFrom: Self.france) == "COREE DU SUD")
        let error = #expect(throws: CountryError.self) { try Country.resolve("Frnace") }
        #expect(error?.description.contains("France (FR)") == true)
    }

    @Test func postcodesAndRequiredFieldsAreTheDestinations() throws {
        let wrong = PostalAddress(
            name: "A B", addressLines: ["1 High Street"], locality: "London", postcode: "NW1 6XEE", country: "GB")
        let error = #expect(throws: AddressProblem.self) { try lines(wrong) }
        #expect(error?.field == "postcode")
        #expect(error?.problem.contains("EC1Y 8SY") == true)
        let noCity = PostalAddress(
            name: "A B", addressLines: ["1 rue X"], locality: nil, postcode: "75001", country: "FR")
        #expect(throws: AddressProblem(field: "city", problem: "an address in France needs a city; add it.")) {
            try lines(noCity)
        }
        let tooMany = PostalAddress(
            name: "A", organisation: "B", addressLines: ["1", "2", "3"], dependentLocality: "D", locality: "Paris",
            postcode: "75001", sortingCode: "CEDEX", country: "FR")
        #expect(throws: AddressProblem.self) { try lines(tooMany) }
    }

    @Test func whatThePostCanRouteWithoutIsAWarningAndEveryFormatReadsWell() throws {
        // A US address in the first specs' fields (no state): written, with a warning.
        let noState = PostalAddress(
            name: "John Smith", address1: "1600 Amphitheatre Parkway", postcode: "94043", city: "Mountain View",
            country: "US")
        let block = try AddressBlock(noState, postedFrom: Self.france)
        #expect(block.lines.map(\.text)[2] == "MOUNTAIN VIEW 94043")
        #expect(block.warnings.map(\.field) == ["region"])
        #expect(
            block.warnings.first?.sentence(owner: "recipient 1")
                == "recipient 1, region: an address in United States needs a state; add it.")
        // Barbados without its parish: no stray comma.
        let barbados = PostalAddress(
            name: "A B", addressLines: ["Bay Street"], locality: "Bridgetown", postcode: "BB11000", country: "BB")
        #expect(try lines(barbados)[2] == "BRIDGETOWN BB11000")
        // Canada writes every street line in capitals.
        let canada = PostalAddress(
            name: "Jean Tremblay", addressLines: ["123 rue Sainte-Catherine", "App 4"], locality: "Montréal",
            region: "QC", postcode: "h3z 2y7", country: "CA")
        #expect(try lines(canada).prefix(3) == ["JEAN TREMBLAY", "123 RUE SAINTE-CATHERINE", "APP 4"])
        // Japan writes the city with the address: it is kept, on its own line before the street.
        let japan = PostalAddress(
            name: "Taro Yamada", addressLines: ["1-1 Marunouchi"], locality: "Chiyoda-ku", region: "Tokyo",
            postcode: "100-0005", country: "JP")
        #expect(try lines(japan).contains("Chiyoda-ku"))
    }

    @Test func laPosteIsOneTerritoryAndItsPostcodesAreFiveDigits() throws {
        let guadeloupe = PostalAddress(
            name: "Marie Joseph", addressLines: ["12 rue Schœlcher"], locality: "Pointe-à-Pitre", postcode: "97110",
            country: "Guadeloupe")
        let written = try lines(guadeloupe)
        #expect(written == ["Marie Joseph", "12 RUE SCHŒLCHER", "97110 POINTE-A-PITRE"], "\(written)")
        let spaced = PostalAddress(
            name: "A B", addressLines: ["1 rue X"], locality: "Paris", postcode: "75 001", country: "FR")
        #expect(try lines(spaced).last == "75001 PARIS")
        let fullwidth = PostalAddress(
            name: "A B", addressLines: ["1 rue X"], locality: "Paris", postcode: "７５００１", country: "FR")
        #expect(try lines(fullwidth).last == "75001 PARIS")
        let arabicIndic = PostalAddress(
            name: "A B", addressLines: ["1 rue X"], locality: "Paris", postcode: "٧٥٠٠١", country: "FR")
        #expect(throws: AddressProblem.self) { try lines(arabicIndic) }
    }

    @Test func mailClassesFollowTheUPUSizes() {
        #expect(MailClass(long: 148, short: 105) == .postcard)
        #expect(MailClass(long: 152.4, short: 101.6) == .postcard)
        #expect(MailClass(long: 210, short: 148) == .letter)
        #expect(MailClass(long: 177.8, short: 127) == .letter)
        #expect(MailClass(long: 228.6, short: 152.4) == .letter)
        #expect(MailClass(long: 130, short: 100) == .letter)
    }
}
