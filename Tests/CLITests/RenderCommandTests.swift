import Foundation
import TestSupport
import Testing
import VipsKit

#if canImport(Glibc)
    import Glibc
#endif

/// `cardrender render` and `cardrender frames`, run as a user would.
@Suite(.libvips) struct RenderCommandTests {
    private func cardrender(_ arguments: String...) throws -> Tools.Run {
        try ThumbCommandTests.run(arguments)
    }

    private struct Report: Decodable {
        struct Card: Decodable {
            var input: String
            var error: String?
            var quality: String?
            var effectiveDPI: Double?
            var outputs: [String: String]?
        }
        struct Summary: Decodable {
            var total: Int
            var rendered: Int
            var failed: Int
            var notStarted: Int
        }
        var interrupted: Bool
        var cards: [Card]
        var summary: Summary
    }

    private func report(_ path: String) throws -> Report {
        try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// `--placement auto` for photos without a spec: each card's report says where its photo
    /// was put and why, and only such a run opens OpenCV.
    @Test func placementAutoIsReportedAndOpensOpenCVOnlyThen() throws {
        let input = try Fixtures.scratchDirectory()
        let faces = Fixtures.root.path + "/Tests/faces"
        for name in ["astronaut-top-right-1200x1800.jpg", "two-astronauts-2400x1200.jpg"] {
            try FileManager.default.copyItem(atPath: faces + "/" + name, toPath: input + "/" + name)
        }
        let output = try Fixtures.scratchDirectory()
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "libs"
        let run = try Tools.run(
            Tools.cardrender,
            ["render", input, "--out", output, "--frame", "travel/airmail", "--placement", "auto", "--no-cache"],
            environment: environment)
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        // OpenCV comes in with the face detector plugin, which the binary opens.
        #expect(run.stderr.contains("calling init: ") && run.stderr.contains("libopencv_objdetect"))
        #expect(run.stderr.contains("libFaceDetectorPlugin.so"))
        let report =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: output + "/report.json"))) as? [String: Any]
        let cards = try #require(report?["cards"] as? [[String: Any]])
        let reasons = Dictionary(
            uniqueKeysWithValues: cards.map {
                (
                    URL(fileURLWithPath: $0["input"] as? String ?? "").lastPathComponent,
                    ($0["placement"] as? [String: Any])?["reason"] as? String
                )
            })
        #expect(reasons["astronaut-top-right-1200x1800.jpg"] == "1 face kept")
        #expect(reasons["two-astronauts-2400x1200.jpg"] == "2 faces kept")
        let transform = try #require((cards.first?["placement"] as? [String: Any])?["transform"] as? [String: Any])
        #expect(transform["scale"] as? Double == 1 && transform["rotation"] as? Double == 0)

        // Without --placement auto: no placement in the report, and OpenCV never opened.
        let plain = try Tools.run(
            Tools.cardrender, ["render", input, "--out", output + "-plain", "--frame", "travel/airmail", "--no-cache"],
            environment: environment)
        #expect(plain.status == 0)
        #expect(!plain.stderr.contains("libopencv") && !plain.stderr.contains("libFaceDetectorPlugin"))
        let plainReport =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: output + "-plain/report.json"))) as? [String: Any]
        #expect((plainReport?["cards"] as? [[String: Any]])?.allSatisfy { $0["placement"] == nil } == true)
    }

    /// The corpus (photos, orientation examples, both broken files) plus a bad spec: every
    /// good photo renders, the failures are reported alone, exit status 1.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func corpusBatchWithBrokenFilesRendersTheRest() throws {
        let input = try Fixtures.scratchDirectory()
        let output = try Fixtures.scratchDirectory()
        for folder in ["photos", "orientation", "broken"] {
            try FileManager.default.copyItem(atPath: Fixtures.photo(folder), toPath: input + "/" + folder)
        }
        try Data(#"{"version": 1, "frame": "travel/airmail", "effect": "purple"}"#.utf8)
            .write(to: URL(fileURLWithPath: input + "/photos/jolla-3264x2448.card.json"))
        try Data(#"{"version": 1, "frame": "love/hearts", "effect": {"name": "vintage", "strength": 0.5}}"#.utf8)
            .write(to: URL(fileURLWithPath: input + "/photos/reconyx-2048x1536.card.json"))

        let run = try cardrender(
            "render", input, "--out", output, "--frame", "classic/gilded", "--effect", "sepia", "--jobs", "2")
        #expect(run.status == 1, "\(run.stderr)")
        let result = try report(output + "/report.json")
        #expect(result.summary.total == 27)
        #expect(result.summary.failed == 2)
        #expect(result.summary.rendered == 25)
        let failures = result.cards.filter { $0.error != nil }
        #expect(failures.contains { $0.input.hasSuffix("corrupted-3648x2736.jpg") && $0.error!.contains("damaged") })
        #expect(failures.contains { $0.error!.contains("jolla-3264x2448.card.json: effect: expected one of") })
        #expect(run.stderr.contains("corrupted-3648x2736.jpg"))
        // Every rendered card has its three files, the tree mirrored; the print is A6 at 300 dpi.
        for card in result.cards where card.error == nil {
            let outputs = try #require(card.outputs)
            for name in ["print", "sample", "small"] {
                #expect(FileManager.default.fileExists(atPath: output + "/" + outputs[name]!), "\(outputs[name]!)")
            }
        }
        let print = try Fixtures.load(output + "/orientation/Portrait_6.print.jpg")
        #expect(print.width == 1748 && print.height == 1240)
        #expect(abs(print.xResolution * 25.4 - 300) < 0.5)
        #expect(FileManager.default.fileExists(atPath: output + "/index.html"))
        let gallery = try String(contentsOfFile: output + "/index.html", encoding: .utf8)
        #expect(gallery.contains("corrupted-3648x2736.jpg") && gallery.contains("photos/phone-4032x3024.small.png"))
        #expect(!Fixtures.files(under: output).contains { $0.contains(".tmp-") })
    }

    /// One back per recipient, listed in the report and the gallery beside the front; a
    /// message without recipients gets one back with an empty address block.
    @Test func oneVersoPerRecipient() throws {
        let input = try Fixtures.scratchDirectory()
        let output = try Fixtures.scratchDirectory()
        try Synthetic.quadrants(input + "/a.png", width: 700, height: 500)
        try Synthetic.quadrants(input + "/b.png", width: 700, height: 500)
        try Data(
            #"""
            {"version": 1, "message": {"text": "Bises !", "font": "script", "colour": "red"},
             "recipients": [{"name": "A", "address1": "1 rue", "postcode": "75001", "city": "X", "country": "France"},
                            {"name": "B", "address1": "2 rue", "postcode": "75002", "city": "Y", "country": "France"},
                            {"name": "C", "address1": "3 rue", "postcode": "75003", "city": "Z", "country": "France"}]}
            """#.utf8
        ).write(to: URL(fileURLWithPath: input + "/a.card.json"))
        try Data(#"{"version": 1, "message": {"text": "Sans adresse"}}"#.utf8)
            .write(to: URL(fileURLWithPath: input + "/b.card.json"))
        let run = try cardrender("render", input, "--out", output)
        #expect(run.status == 0, "\(run.stderr)")
        let files = Fixtures.files(under: output)
        for number in 1...3 {
            for kind in ["print.jpg", "sample.jpg", "small.png"] {
                #expect(files.contains("a.verso-\(number).\(kind)"), "a.verso-\(number).\(kind)")
            }
        }
        #expect(!files.contains("a.verso-4.print.jpg"))
        #expect(files.contains("b.verso-1.print.jpg") && !files.contains("b.verso-2.print.jpg"))
        let back = try Fixtures.load(output + "/a.verso-2.print.jpg")
        #expect(back.width == 1748 && back.height == 1240)
        let report = try String(contentsOfFile: output + "/report.json", encoding: .utf8)
        #expect(report.contains("a.verso-3.print.jpg"))
        let gallery = try String(contentsOfFile: output + "/index.html", encoding: .utf8)
        #expect(gallery.contains("a.verso-1.small.png"))
    }

    /// A missing input is called missing (not "interrupted"), and a folder with nothing to
    /// render says so: exit 1 for the one, 0 for the other (an empty inbox is no error).
    @Test func missingAndEmptyInputsAreNamed() throws {
        let scratch = try Fixtures.scratchDirectory()
        let missing = try Tools.run(
            Tools.cardrender, ["render", scratch + "/nonexistent", "--out", scratch + "/x", "--no-cache"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("nonexistent: no such file or directory"), "\(missing.stderr)")
        #expect(missing.stderr.contains("1 input missing or unreadable"), "\(missing.stderr)")
        #expect(!missing.stderr.contains("interrupted"), "\(missing.stderr)")
        try FileManager.default.createDirectory(atPath: scratch + "/empty", withIntermediateDirectories: true)
        let empty = try Tools.run(
            Tools.cardrender, ["render", scratch + "/empty", "--out", scratch + "/y", "--no-cache"])
        #expect(empty.status == 0)
        #expect(
            empty.stderr.contains("nothing to render: no photos or card specs were found in \(scratch)/empty"),
            "\(empty.stderr)")
    }

    @Test func usageErrorsExit64() throws {
        let directory = try Fixtures.scratchDirectory()
        try Synthetic.quadrants(directory + "/q.png")
        for arguments in [
            ["render", directory],
            ["render", directory, "--out", directory + "/o", "--frame", "nope/none"],
            ["render", directory, "--out", directory + "/o", "--effect", "purple"],
            ["render", directory, "--out", directory + "/o", "--size", "a4"],
        ] {
            let run = try ThumbCommandTests.run(arguments)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
        }
    }

    /// Ctrl-C in the middle of a batch: the running cards finish, nothing half-written is
    /// left, the report covers what finished, exit status 130.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func interruptedBatchLeavesNoPartialFiles() throws {
        let input = try Fixtures.scratchDirectory()
        let output = try Fixtures.scratchDirectory()
        for copy in 0..<12 {
            for name in ["phone-4032x3024.jpg", "nokia-8.3-4608x1976.jpg", "iphone-hdr-3264x2448.jpg"] {
                try FileManager.default.copyItem(
                    atPath: Fixtures.photo("photos/" + name), toPath: "\(input)/\(copy)-\(name)")
            }
        }
        // The process stops itself as its first card's last file is about to get its name;
        // Ctrl-C arrives there, and it goes on: a deterministic interrupt mid-batch.
        let child = try StoppableProcess(
            ThumbCommandTests.binary,
            ["render", input, "--out", output, "--jobs", "2", "--quiet", "--frame", "classic/ebony", "--no-cache"],
            environment: ["CARDRENDER_FAILPOINT": "stop-before-rename@.small.png"])
        #expect(child.wait(upTo: 120) == .stopped(signal: SIGSTOP))
        child.send(SIGINT)
        child.send(SIGCONT)
        #expect(child.wait(upTo: 120) == .exited(status: 130))
        let files = Fixtures.files(under: output)
        #expect(!files.contains { $0.contains(".tmp-") }, "temporary files left: \(files)")
        let result = try report(output + "/report.json")
        #expect(result.interrupted)
        #expect(result.summary.rendered >= 1)
        #expect(result.summary.rendered + result.summary.failed + result.summary.notStarted == 36)
        for file in files where file.hasSuffix(".print.jpg") {
            let image = try Fixtures.load(output + "/" + file)
            #expect(try image.average() > 0, "\(file) decodes whole")
        }
        #expect(files.filter { $0.hasSuffix(".print.jpg") }.count == result.summary.rendered)
    }

    @Test func framesListJSONAndPreviews() throws {
        let list = try cardrender("frames")
        #expect(list.status == 0)
        #expect(list.stdoutText.contains("travel/airmail"))
        #expect(list.stdoutText.contains("18 frames in 6 themes"))
        let json = try cardrender("frames", "--json")
        let manifests = try JSONSerialization.jsonObject(with: json.stdout) as? [[String: Any]]
        #expect(manifests?.count == 18)
        #expect(manifests?.first?["window"] != nil)

        let directory = try Fixtures.scratchDirectory()
        let previews = try cardrender("frames", "--preview", directory)
        #expect(previews.status == 0, "\(previews.stderr)")
        let files = Fixtures.files(under: directory)
        #expect(files.count == 18)
        let preview = try Fixtures.load(directory + "/travel/airmail.png")
        #expect(preview.width == 320)
    }
}
