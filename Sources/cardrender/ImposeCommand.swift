import ArgumentParser
import FileUtilities
import Mail
import PressKit

/// `cardrender impose`: finished postcards N-up on press sheets, fronts and backs in register;
/// sorted by destination and imposed cut-and-stack on request, with a deposit manifest.
struct ImposeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "impose",
        abstract: "Put finished PDF postcards N-up on press sheets, with crop marks.",
        discussion: """
            Takes the PDF postcards `render --press` writes (all of one size) and writes one PDF \
            of sheets: a sheet of fronts, then the sheet of their backs, each back mirrored left \
            to right so that it lies behind its front when the sheet is turned over on its \
            vertical axis. Cards keep their bleed and touch bleed to bleed; crop marks (2 mm \
            off the bleed, 5 mm long) mark every trim line around the block. The sheet is \
            turned landscape when that holds more cards. A layout whose cards and marks do not \
            fit is refused with the numbers.

            With --sort destination the postcards are ordered by the destination each one \
            carries in its Info (country, then postcode, digits by value, then name; case and \
            accents ignored) and imposed cut-and-stack: with S sheets, card i goes to sheet \
            i mod S, position i div S. Pile the sheets in order, sheet 1 on top, fronts up, and \
            cut: each position's stack holds S consecutive cards, and the stack of position 1 \
            laid on that of position 2, then 3..., gives the cards in order. Only the last \
            sheets may have empty positions, at their end.

            --manifest writes the deposit manifest beside the sheets: FILE.csv, one row per \
            card (sequence, card, country, postcode, mail_class, sheet, position; sheets and \
            positions from 1, positions row by row from the top left of the fronts), and \
            FILE.json, the rows and the cards per country and per French département. \
            Recipients' names are in neither, nor in the sheets' Info.

            Exit status: 0 written, 1 an input is not a postcard of the first one's size, \
            carries no destination when one is needed, or nothing fits, 64 usage error.
            """)

    /// The order postcards take on the sheets.
    enum Order: String, CaseIterable, ExpressibleByArgument {
        /// As named on the command line, filling each sheet in turn.
        case input
        /// By destination, imposed cut-and-stack.
        case destination
    }

    @Argument(help: ArgumentHelp("The PDF postcards, in the order they fill the sheets.", valueName: "file"))
    var files: [String]

    @Option(
        help: ArgumentHelp("Sheet size: sra3 (320 x 450 mm), a3, or WIDTHxHEIGHT in millimetres.", valueName: "size"))
    var sheet: String = "sra3"

    @Option(
        help: ArgumentHelp(
            "The order on the sheets: input (as named, filling each sheet in turn) or destination (sorted by the "
                + "destination in each postcard, imposed cut-and-stack).",
            valueName: "order"))
    var sort: Order = .input

    @Option(
        help: ArgumentHelp(
            "Also write the deposit manifest as FILE.csv and FILE.json (a .csv or .json ending is dropped "
                + "first). Every postcard must carry its destination.",
            valueName: "file"))
    var manifest: String?

    @Option(help: ArgumentHelp("The PDF of sheets to write.", valueName: "file"))
    var out: String

    func validate() throws {
        guard SheetLayout.Sheet(sheet) != nil else {
            throw ValidationError(
                "--sheet must be sra3, a3 or WIDTHxHEIGHT in millimetres (up to 2000 each); received \(sheet).")
        }
        if let manifest, Self.manifestBase(manifest).isEmpty || manifest.hasSuffix("/") {
            throw ValidationError(
                "--manifest must name a file (FILE.csv and FILE.json are written); received \(manifest).")
        }
    }

    /// The manifest's path without the `.csv` or `.json` the user may have given.
    static func manifestBase(_ path: String) -> String {
        for ending in [".csv", ".json"] where path.hasSuffix(ending) { return String(path.dropLast(ending.count)) }
        return path
    }

    func run() throws {
        let postcards = try files.map { file in
            do {
                return Imposer.Postcard(name: file, bytes: try InputPDF.read(file))
            } catch {
                Console.error("cardrender: \(error)")
                throw ExitCode(1)
            }
        }
        do {
            // Each postcard's destination, when the order or the manifest needs them.
            let destinations: [Destination]?
            if sort == .destination || manifest != nil {
                destinations = try postcards.map { postcard in
                    guard let destination = try Imposer.destination(of: postcard) else {
                        throw ImpositionError(
                            message: "\(postcard.name): carries no destination (no /DestinationCountry in its Info); "
                                + "--sort destination and --manifest need each postcard's (render --press writes it "
                                + "for a card with a recipient)")
                    }
                    return destination
                }
            } else {
                destinations = nil
            }
            // Sorted stably: postcards to one destination keep their order on the command line.
            let run = try PrintRun(
                postcards, destinations: destinations, order: sort == .destination ? .byDestination : .given,
                sheet: SheetLayout.Sheet(sheet)!)
            let pdf = try run.pdf()
            let layout = run.layout
            try AtomicFile.write(pdf, to: out)
            let sheets = run.sheetCount
            let millimetres = { (points: Double) in Int((points / 72 * 25.4).rounded()) }
            Console.error(
                "cardrender: \(postcards.count) postcard\(postcards.count == 1 ? "" : "s") on \(sheets) sheet\(sheets == 1 ? "" : "s") of "
                    + "\(millimetres(layout.width)) x \(millimetres(layout.height)) mm, \(layout.columns) x \(layout.rows) "
                    + "up, fronts and backs\(sort == .destination ? ", sorted by destination, cut-and-stack" : ""): \(out)"
            )
            if let manifest, let deposit = run.manifest {
                let rows = deposit.rows
                let base = Self.manifestBase(manifest)
                try AtomicFile.write(Array(deposit.csv().utf8), to: base + ".csv")
                try AtomicFile.write(deposit.json(), to: base + ".json")
                let countries = deposit.countries.count
                Console.error(
                    "cardrender: deposit manifest of \(rows.count) card\(rows.count == 1 ? "" : "s") to \(countries) "
                        + "countr\(countries == 1 ? "y" : "ies"): \(base).csv, \(base).json")
            }
        } catch let error as ImpositionError {
            Console.error("cardrender: \(error)")
            throw ExitCode(1)
        } catch let error as SheetLayoutError {
            Console.error("cardrender: --sheet \(sheet): \(error)")
            throw ExitCode(1)
        }
    }
}
