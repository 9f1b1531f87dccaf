import Foundation
import TestSupport
import Testing

/// The documentation's one index, and a README that opens with every job the program does.
@Suite struct DocIndexTests {
    static let root = Fixtures.root.path

    @Test func docsREADMEListsEveryPageOnceAndNothingElse() throws {
        let index = try String(contentsOfFile: Self.root + "/docs/README.md", encoding: .utf8)
        let listed = DocPage.tableRows(in: index).flatMap { DocPage.links(in: $0[0]) }
        let pages = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/docs")
            .filter { $0.hasSuffix(".md") && $0 != "README.md" }
        #expect(listed.sorted() == pages.sorted())
    }

    @Test func theREADMEPointsToTheIndexAndKeepsNoSecondOne() throws {
        let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
        #expect(readme.contains("](docs/README.md)"))
        let indexRows = DocPage.tableRows(in: readme).filter { cells in
            DocPage.links(in: cells[0]).contains { $0.hasPrefix("docs/") }
        }
        #expect(indexRows.isEmpty, "README.md has its own table of the docs: docs/README.md is the index")
    }

    /// The opening (up to the first section) names each command `cardrender --help` lists,
    /// and the jobs that are not commands of their own.
    @Test func theREADMEOpeningSaysEveryJob() throws {
        let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
        let opening = readme.components(separatedBy: "\n## ")[0]
        let help = try String(contentsOfFile: Self.root + "/Tests/CLITests/Help/cardrender.txt", encoding: .utf8)
        let block = help.components(separatedBy: "SUBCOMMANDS:\n")[1].components(separatedBy: "\n\n")[0]
        let commands = block.split(separator: "\n").compactMap { line in
            line.hasPrefix("  ") && !line.hasPrefix("   ") ? line.split(separator: " ").first.map(String.init) : nil
        }
        #expect(commands.count >= 10)
        for command in commands {
            #expect(
                opening.contains("`cardrender \(command)"), "the README's opening does not name `cardrender \(command)`"
            )
        }
        for job in ["/v1", "/studio", "face", "PDF/X", "S3", "thumbnail", "address"] {
            #expect(opening.contains(job), "the README's opening does not say \(job)")
        }
    }
}
