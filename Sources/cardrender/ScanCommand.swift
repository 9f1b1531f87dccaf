import ArgumentParser
import CardService
import ImageCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `cardrender scan IMAGE...`: cards that came back (or arrived), recorded from photos of
/// their backs.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Record cards as returned (or delivered) from photos or scans of their backs.",
        discussion: """
            Each image's Data Matrix code is found and its signature checked against the \
            service's secret (in its database); the card, printed or mailed, becomes returned \
            (or delivered), with its event, whichever key ordered it. One line per image on \
            standard output: the image, the card's id and what was recorded. An image without \
            a code, with a code this service did not sign, or of a card that cannot take the \
            status is reported on standard error and the others go on; the exit status is then 1.
            """
    )

    @Argument(help: ArgumentHelp("Photos or scans of cards' backs (JPEG, PNG, HEIC, WebP, TIFF).", valueName: "image"))
    var images: [String]

    @Option(help: "What the scans record: returned (to the sender) or delivered.")
    var outcome: CardScans.Outcome = .returned

    @Flag(help: "Read and check the codes only: print each card's id and record nothing.")
    var dryRun = false

    @OptionGroup var postcards: ServiceOptions

    @OptionGroup var decode: DecodeOptions

    func validate() throws {
        try KeysCommand.validate(postcards)
        guard !images.isEmpty else { throw ValidationError("Give at least one image of a card's back.") }
    }

    func run() async throws {
        let failures = try await KeysCommand.withBook(postcards) { book in
            let scans = CardScans(book: book, policy: decode.policy)
            let secret = try await scans.secret()
            var failures = 0
            for path in images {
                if let problem = try await scan(path, scans: scans, secret: secret) {
                    Console.error("cardrender: \(path): \(problem)")
                    failures += 1
                }
            }
            return failures
        }
        if failures > 0 { throw ExitCode(1) }
    }

    /// Scans one image: nil when its line was printed, else why not.
    private func scan(_ path: String, scans: CardScans, secret: [UInt8]) async throws -> String? {
        let reading: CardScans.Reading
        do {
            let photo = try ImageData(contentsOfFile: path, maxBytes: decode.policy.maxFileBytes)
            reading = try scans.read(photo, secret: secret)
        } catch {
            return "cannot be read: \(error)"
        }
        switch reading {
        case .noCode:
            return
                "no card's code was found (the back whole, flat and in focus, the code at least 2 cm wide in the picture)"
        case .forged:
            return "the code is not one of this service's: its signature does not match"
        case .card(let id) where dryRun:
            print("\(path)\t\(id)\tchecked")
            return nil
        case .card(let id):
            switch try await scans.record(outcome, card: id, owner: nil) {
            case .recorded(_, let changed):
                print("\(path)\t\(id)\t\(outcome.rawValue)\(changed ? "" : " already")")
                return nil
            case .notFound:
                return "the card \(id) is not in this service's database"
            case .notPrinted(_, let status):
                return "the card \(id) is \(status): only a printed or mailed card can be scanned back"
            case .conflict(_, let status):
                return "the card \(id) was scanned before as \(status)"
            }
        }
    }
}

extension CardScans.Outcome: ExpressibleByArgument {}
