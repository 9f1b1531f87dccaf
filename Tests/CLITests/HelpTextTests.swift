import Foundation
import TestSupport
import Testing

/// Every command's `--help` is pinned: a change to an option's name, default or text shows
/// up here and in review. After a deliberate change, regenerate the files with
/// `CARDRENDER_UPDATE_HELP=1 swift test --filter HelpTextTests` and read the diff.
@Suite(.libvips) struct HelpTextTests {
    static let commands: [[String]] = [
        [], ["render"], ["thumb"], ["serve"], ["sign"], ["frames"], ["cache"], ["cache", "stats"], ["cache", "gc"],
        ["cache", "verify"], ["runs"], ["runs", "verify"], ["runs", "merge"], ["preflight"], ["impose"], ["keys"],
        ["keys", "create"], ["scan"],
    ]

    static let directory = Fixtures.root.path + "/Tests/CLITests/Help"

    @Test(arguments: commands)
    func helpIsPinned(_ command: [String]) throws {
        let run = try Tools.run(
            Tools.cardrender, command + ["--help"], environment: ["COLUMNS": "100", "PATH": "/usr/bin:/bin"])
        #expect(run.status == 0, "\(run.stderr)")
        let file = Self.directory + "/" + (["cardrender"] + command).joined(separator: "-") + ".txt"
        if ProcessInfo.processInfo.environment["CARDRENDER_UPDATE_HELP"] == "1" {
            try FileManager.default.createDirectory(atPath: Self.directory, withIntermediateDirectories: true)
            try run.stdout.write(to: URL(fileURLWithPath: file))
        }
        let pinned = try String(contentsOfFile: file, encoding: .utf8)
        #expect(run.stdoutText == pinned, "cardrender \(command.joined(separator: " ")) --help changed; see \(file)")
    }
}
