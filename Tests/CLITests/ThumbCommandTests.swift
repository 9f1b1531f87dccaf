import Foundation
import ImageCore
import TestSupport
import Testing
import VipsKit

/// Runs the built `cardrender` binary as a user would and checks exit codes, streams and files.
@Suite(.libvips) struct ThumbCommandTests {
    /// The `cardrender` executable (see `Tools.cardrender`).
    static let binary = Tools.cardrender

    private func cardrender(_ arguments: String...) throws -> Tools.Run {
        try Self.run(arguments)
    }

    /// Runs the binary with a fresh, private cache (so runs never see each other's results).
    static func run(_ arguments: [String], cache: String? = nil) throws -> Tools.Run {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = try cache ?? Fixtures.scratchDirectory("cache")
        return try Tools.run(binary, arguments, environment: environment)
    }

    @Test func helpListsEveryFormat() throws {
        let run = try cardrender("thumb", "--help")
        #expect(run.status == 0)
        for format in OutputFormat.allCases { #expect(run.stdoutText.contains(format.rawValue)) }
        #expect(run.stdoutText.contains("--width"))
    }

    @Test func usageErrorsExit64() throws {
        let directory = try Fixtures.scratchDirectory()
        try Synthetic.quadrants(directory + "/q.png")
        let cases: [[String]] = [
            ["thumb", directory + "/q.png", "--out", directory],  // no width
            ["thumb", directory + "/q.png", "--width", "0", "--out", directory],
            ["thumb", directory + "/q.png", "--width", "abc", "--out", directory],
            ["thumb", directory + "/q.png", "--width", "9000", "--out", directory],
            ["thumb", directory + "/q.png", "--width", "10"],  // nowhere to write
            ["thumb", directory + "/q.png", "--width", "10", "--format", "bmp", "--out", directory],
            ["thumb", directory + "/q.png", "--width", "10", "--quality", "101", "--out", directory],
            ["thumb", directory, "--width", "10", "-o", directory + "/x.png"],
        ]
        for arguments in cases {
            let run = try Self.run(arguments)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(!run.stderr.isEmpty)
        }
        #expect(Fixtures.files(under: directory) == ["q.png"])
    }

    @Test func singleFileToFileAndToStdout() throws {
        let directory = try Fixtures.scratchDirectory()
        try Synthetic.quadrants(directory + "/photo ünï.png", width: 300, height: 200)
        let toFile = try cardrender(
            "thumb", directory + "/photo ünï.png", "--width", "150", "--format", "jpeg", "-o", directory + "/t.jpg")
        #expect(toFile.status == 0, "\(toFile.stderr)")
        let header = try ImageData(contentsOfFile: directory + "/t.jpg", maxBytes: 1 << 20).header()
        #expect(header.format == .jpeg && header.width == 150 && header.height == 100)

        let toStdout = try cardrender("thumb", directory + "/photo ünï.png", "--width", "30", "-o", "-")
        #expect(toStdout.status == 0)
        let png = try ImageData(copying: toStdout.stdout, name: "stdout").header()
        #expect(png.format == .png && png.width == 30 && png.height == 20)
    }

    /// A directory with good photos and bad files: every good one is written (tree
    /// mirrored), each bad one is one line on stderr naming it, exit status 1, and no
    /// output or temporary file appears for the bad ones.
    @Test func directoryWithBadFilesWritesTheRestAndExits1() throws {
        let input = try Fixtures.scratchDirectory()
        let output = try Fixtures.scratchDirectory()
        try FileManager.default.createDirectory(atPath: input + "/nested dir", withIntermediateDirectories: true)
        try Synthetic.quadrants(input + "/good.png", width: 400, height: 300)
        try Synthetic.quadrants(input + "/nested dir/café.jpg", width: 300, height: 400)
        _ = FileManager.default.createFile(atPath: input + "/empty.jpg", contents: Data())
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: input + "/text.jpg"))
        try Data("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8).write(to: URL(fileURLWithPath: input + "/v.gif"))
        try Data("readme".utf8).write(to: URL(fileURLWithPath: input + "/README.txt"))

        let run = try cardrender("thumb", input, "--width", "100", "--out", output, "--jobs", "2")
        #expect(run.status == 1)
        #expect(Fixtures.files(under: output) == ["good.png", "nested dir/café.png"])
        let errors = run.stderr.split(separator: "\n")
        #expect(errors.count == 3, "\(run.stderr)")
        for bad in ["empty.jpg", "text.jpg", "v.gif"] {
            #expect(errors.contains { $0.contains(input + "/" + bad) }, "\(bad) not reported: \(run.stderr)")
        }
        #expect(run.stderr.contains("is empty"))
        #expect(!run.stderr.contains("README.txt"))
        let portrait = try ImageData(contentsOfFile: output + "/nested dir/café.png", maxBytes: 1 << 20).header()
        #expect(portrait.width == 100 && portrait.height == 133)
        #expect(run.stdoutText.split(separator: "\n").count == 2)
    }

    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func corpusDirectoryInParallel() throws {
        let output = try Fixtures.scratchDirectory()
        let run = try cardrender(
            "thumb", Fixtures.photo("photos"), Fixtures.photo("broken"), "--width", "64", "--format", "webp",
            "--out", output, "--quiet")
        #expect(run.status == 1)
        #expect(run.stdoutText.isEmpty)
        #expect(run.stderr.split(separator: "\n").count == 1)
        #expect(run.stderr.contains("corrupted-3648x2736.jpg: the image data is damaged"))
        #expect(run.stderr.contains("Corrupt JPEG data"))
        #expect(Fixtures.files(under: output).count == 8)
        #expect(Fixtures.files(under: output).allSatisfy { $0.hasSuffix(".webp") })
    }

    @Test func pixelLimitFromTheCommandLine() throws {
        let directory = try Fixtures.scratchDirectory()
        try Synthetic.quadrants(directory + "/q.png", width: 100, height: 100)
        let run = try cardrender(
            "thumb", directory + "/q.png", "--width", "10", "--max-pixels", "5000", "-o", directory + "/t.png")
        #expect(run.status == 1)
        #expect(run.stderr.contains("over the limit of 5000 pixels"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/t.png"))
    }

    /// The thumbnail batch shares the card batch's engine: Ctrl-C stops it the same way
    /// (exit 130, what ran is whole, the report says what did not start).
    @Test func interruptedThumbnailBatchReportsWhatDidNotStart() throws {
        let input = try Fixtures.scratchDirectory("photos")
        for index in 0..<6 {
            try Synthetic.image(input + "/p\(index).png", width: 300 + index, height: 200, bands: 3) { x, y in
                [UInt8(x % 256), UInt8(y % 256), UInt8(index * 40)]
            }
        }
        let output = try Fixtures.scratchDirectory("out")
        let report = output + ".report.json"
        let child = try StoppableProcess(
            Self.binary,
            ["thumb", input, "--width", "100", "--out", output, "--report", report, "--jobs", "1", "--no-cache"],
            environment: ["CARDRENDER_FAILPOINT": "stop-before-rename@/out"])
        #expect(child.wait(upTo: 120) == .stopped(signal: SIGSTOP))
        child.send(SIGINT)
        child.send(SIGCONT)
        #expect(child.wait(upTo: 120) == .exited(status: 130))
        // Whatever the scheduling after Ctrl-C (the handler may run on another thread a
        // moment after the worker resumes), every input is accounted for and every file whole.
        let files = Fixtures.files(under: output)
        #expect(!files.contains { $0.contains(".tmp-") }, "\(files)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let summary = try #require(json["summary"] as? [String: Any])
        let written = try #require(summary["written"] as? Int)
        #expect(json["interrupted"] as? Bool == true)
        #expect(written >= 1 && written == files.count)
        #expect(written + (summary["notStarted"] as? Int ?? -1) == 6 && summary["total"] as? Int == 6)
        for file in files { #expect(try Fixtures.load(output + "/" + file).width == 100) }
    }
}
