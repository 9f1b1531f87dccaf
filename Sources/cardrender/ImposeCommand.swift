import ArgumentParser
import CardKit
import FileUtilities
import PressKit

/// `cardrender impose`: finished postcards N-up on press sheets, fronts and backs in register.
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
            fit is refused with the numbers. Exit status: 0 written, 1 an input is not a \
            postcard of the first one's size or nothing fits, 64 usage error.
            """)

    @Argument(help: ArgumentHelp("The PDF postcards, in the order they fill the sheets.", valueName: "file"))
    var files: [String]

    @Option(
        help: ArgumentHelp("Sheet size: sra3 (320 x 450 mm), a3, or WIDTHxHEIGHT in millimetres.", valueName: "size"))
    var sheet: String = "sra3"

    @Option(help: ArgumentHelp("The PDF of sheets to write.", valueName: "file"))
    var out: String

    func validate() throws {
        guard SheetLayout.Sheet(sheet) != nil else {
            throw ValidationError(
                "--sheet must be sra3, a3 or WIDTHxHEIGHT in millimetres (up to 2000 each); received \(sheet).")
        }
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
            let (pdf, layout) = try Imposer(sheet: SheetLayout.Sheet(sheet)!).impose(postcards)
            try AtomicFile.write(pdf, to: out)
            let sheets = (postcards.count + layout.perSheet - 1) / layout.perSheet
            let millimetres = { (points: Double) in Int((points / 72 * 25.4).rounded()) }
            Console.error(
                "cardrender: \(postcards.count) postcard\(postcards.count == 1 ? "" : "s") on \(sheets) sheet\(sheets == 1 ? "" : "s") of "
                    + "\(millimetres(layout.width)) x \(millimetres(layout.height)) mm, \(layout.columns) x \(layout.rows) "
                    + "up, fronts and backs: \(out)")
        } catch let error as ImpositionError {
            Console.error("cardrender: \(error)")
            throw ExitCode(1)
        } catch let error as SheetLayoutError {
            Console.error("cardrender: --sheet \(sheet): \(error)")
            throw ExitCode(1)
        }
    }
}
