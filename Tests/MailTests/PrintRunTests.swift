import Mail
import PressKit
import PressPDF
import Testing

/// `PrintRun`, which `cardrender impose` and `/v1/print-runs` both make their runs with: the
/// press order, the places on the sheets, the sheets' PDFs and the manifest.
struct PrintRunTests {
    static func destination(_ country: String, _ postcode: String, _ name: String) -> Destination {
        Destination(country: country, postcode: postcode, name: name, mailClass: .postcard)
    }

    @Test func byDestinationIsStableWithoutACountryLastAndCutAndStack() throws {
        let names = ["a", "b", "c", "d", "e", "f", "g"]
        let postcards = try names.map { try ImposerDestinationTests.postcard($0, info: []) }
        let destinations = [
            Self.destination("FR", "75001", "Zoe"), Self.destination("", "", ""),
            Self.destination("DE", "10115", "Ana"),
            Self.destination("FR", "75001", "Zoe"), Self.destination("FR", "13001", "Luc"),
            Self.destination("", "", ""), Self.destination("BE", "1000", "Ida"),
        ]
        let run = try PrintRun(postcards, destinations: destinations, order: .byDestination, sheet: .sra3)
        // BE, DE, FR 13001, FR 75001 (a before d, as given), then the two without a country, as given.
        #expect(run.postcards.map(\.name) == ["g", "c", "e", "a", "d", "b", "f"])
        #expect(run.order == [6, 2, 4, 0, 3, 1, 5])
        let perSheet = run.layout.perSheet
        let plan = CutAndStack(cards: 7, perSheet: perSheet)
        #expect(run.placements == plan.placements)
        #expect(run.sheetCount == plan.sheetCount)
        let manifest = try #require(run.manifest)
        #expect(manifest.rows.map(\.card) == ["g", "c", "e", "a", "d", "b", "f"])
        #expect(manifest.rows.map(\.sequence) == Array(1...7))
        #expect(manifest.rows.map(\.sheet) == plan.placements.map { $0.sheet + 1 })
        #expect(manifest.rows.map(\.country) == ["BE", "DE", "FR", "FR", "FR", "", ""])
        // Every sheet's PDF holds its fronts and backs; all of them together are the run's PDF.
        var pages = 0
        for number in 0..<run.sheetCount {
            let sheet = try QPDFDocument(reading: try run.pdf(ofSheet: number), name: "sheet \(number)")
            #expect(sheet.pageCount == 2)
            pages += sheet.pageCount
        }
        #expect(try QPDFDocument(reading: try run.pdf(), name: "run").pageCount == pages)
    }

    @Test func theGivenOrderFillsSheetsRowByRowWithoutAManifest() throws {
        let postcards = try (0..<5).map { try ImposerDestinationTests.postcard("p\($0)", info: []) }
        let run = try PrintRun(postcards, destinations: nil, order: .given, sheet: .a3)
        #expect(run.postcards.map(\.name) == ["p0", "p1", "p2", "p3", "p4"])
        let perSheet = run.layout.perSheet
        #expect(run.placements.map(\.sheet) == (0..<5).map { $0 / perSheet })
        #expect(run.placements.map(\.position) == (0..<5).map { $0 % perSheet })
        #expect(run.sheetCount == (5 + perSheet - 1) / perSheet)
        #expect(run.manifest == nil)
    }

    @Test func aRunIsRefusedWithoutPostcardsOrWithoutTheDestinationsItSortsBy() throws {
        let card = try ImposerDestinationTests.postcard("one", info: [])
        #expect(throws: ImpositionError.self) { try PrintRun([], destinations: nil, order: .given, sheet: .sra3) }
        #expect(throws: ImpositionError.self) {
            try PrintRun([card], destinations: nil, order: .byDestination, sheet: .sra3)
        }
        #expect(throws: ImpositionError.self) {
            try PrintRun([card], destinations: [], order: .given, sheet: .sra3)
        }
    }
}
