import ArgumentParser
import PressKit

/// `cardrender preflight`: a print shop's checks on PDF postcards, as a checklist.
struct PreflightCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preflight",
        abstract: "Check PDF postcards the way a print shop does, before sending them.",
        discussion: """
            Checks each file for: structure (qpdf reads it without repair), PDF/X \
            identification and Trapped, a GTS_PDFX output intent with its CMYK profile, 1 or 2 \
            pages, TrimBox inside BleedBox inside MediaBox, no RGB, no transparency (PDF/X-1a), \
            fonts embedded or none, image resolution, total ink (averaged over 1 mm squares) and \
            black text in black ink alone. With --press, also the profile's trim size, bleed, \
            printing condition, PDF/X version, dpi and ink limit; without, 300 ppi and 300 % ink. \
            With --postal, also the address side (the last page) by the posts' zones: no ink in \
            the 140 x 15 mm coding strip along the bottom, nothing but the stamp box in the 74 x \
            40 mm franking zone, nothing on the right half outside the address zone, the address \
            dark on a light ground (docs/mail.md). Prints a checklist per file. Exit status: 0 every file passed, 1 a check failed or a \
            file could not be read, 64 usage error.
            """)

    @Argument(help: ArgumentHelp("The PDF files.", valueName: "file"))
    var files: [String]

    @Option(
        help: ArgumentHelp(
            "The press profile to check against: eu-a6-fogra39, us-4x6-gracol or gelato-a6 (see `cardrender render --help`).",
            valueName: "name"))
    var press: RenderCommand.PressName?

    @Flag(
        help:
            "Check the address side (the last page) against the posts' zones: coding strip, franking zone, address zone, contrast."
    )
    var postal = false

    @Flag(name: .shortAndLong, help: "Print only the files that fail, with their failed checks.")
    var quiet = false

    func validate() throws {
        if press == .rgbJPEG { throw ValidationError("--press rgb-jpeg makes JPEGs, not PDFs: nothing to preflight.") }
    }

    func run() throws {
        let profile = try press.flatMap { try Resources.pressProfile($0.rawValue) }
        let preflight = Preflight(press: profile, postal: postal)
        var failed = 0
        for file in files {
            let bytes: [UInt8]
            do {
                bytes = try InputPDF.read(file)
            } catch {
                Console.error("cardrender: \(error)")
                failed += 1
                continue
            }
            let report = preflight.check(bytes, name: file)
            if !report.passed { failed += 1 }
            if quiet && report.passed { continue }
            var lines = ["\(file): \(report.passed ? "passed" : "FAILED")"]
            for check in report.checks where !quiet || !check.passed {
                lines.append("  \(check.passed ? "ok  " : "FAIL") \(check.name): \(check.detail)")
            }
            print(lines.joined(separator: "\n"))
        }
        if failed > 0 { throw ExitCode(1) }
    }
}
