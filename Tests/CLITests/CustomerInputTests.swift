import Foundation
import TestSupport
import Testing
import VipsKit

/// What print shops' folders and customers' specs really hold: two photos with one name, a
/// spec given by name, specs that point elsewhere. Run as a user would, on the binary.
@Suite(.libvips) struct CustomerInputTests {
    /// Runs the binary on a worker thread: waiting for a process must not hold one of Swift's
    /// cooperative threads, which the server suites running at the same time need.
    private func cardrender(_ arguments: String...) async throws -> Tools.Run {
        try await run(arguments)
    }

    private func run(_ arguments: [String]) async throws -> Tools.Run {
        try await Tools.onWorkerThread { try ThumbCommandTests.run(arguments) }
    }

    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// `a.jpg` and `a.png` in one folder, or `x/a.jpg` and `y/a.jpg` as two arguments: a
    /// usage error listing every clash, for render and thumb, sharded or not; nothing written.
    @Test func photosWithOneNameAreRefusedBeforeRendering() async throws {
        let input = try Fixtures.scratchDirectory()
        try FileManager.default.createDirectory(atPath: input + "/x", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: input + "/y", withIntermediateDirectories: true)
        try Synthetic.quadrants(input + "/x/a.jpg")
        try Synthetic.quadrants(input + "/x/a.png", width: 80)
        try Synthetic.quadrants(input + "/y/a.jpg", width: 96)
        try Synthetic.quadrants(input + "/x/b.jpg")
        try Synthetic.quadrants(input + "/x/b.verso-1.jpg")
        try write(
            #"{"version": 1, "recipients": [{"name": "A", "address1": "1 rue", "postcode": "75001", "city": "P", "country": "France"}]}"#,
            to: input + "/x/b.card.json")
        let cases: [[String]] = [
            ["render", input + "/x"],
            ["render", input + "/x/a.jpg", input + "/y/a.jpg"],
            ["render", input + "/x", "--run", "r", "--shard", "0/2"],
            ["render", input + "/x", "--run", "r", "--shard", "1/2"],
            ["thumb", input + "/x/a.jpg", input + "/y/a.jpg", "--width", "20"],
            ["thumb", input + "/x", "--width", "20", "--run", "t", "--shard", "1/2"],
        ]
        for arguments in cases {
            let output = try Fixtures.scratchDirectory()
            let run = try await run(arguments + ["--out", output])
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("a.jpg") && run.stderr.contains("would both write"), "\(run.stderr)")
            #expect(run.stderr.contains("nothing was rendered"))
            #expect(Fixtures.files(under: output).filter { !$0.hasSuffix("/") }.isEmpty, "\(arguments)")
        }
        // Every clash is listed: a.jpg/a.png, and b's back against b.verso-1.jpg.
        let run = try await cardrender("render", input + "/x", "--out", try Fixtures.scratchDirectory())
        #expect(run.stderr.contains("a.png") && run.stderr.contains("b.verso-1.jpg"), "\(run.stderr)")
        #expect(run.stderr.contains("2 output name(s)"))
    }

    /// A spec named on the command line is read as a spec: the photo it names, or the
    /// sidecar photo beside it.
    @Test func aSpecGivenAsAnArgumentIsASpec() async throws {
        let input = try Fixtures.scratchDirectory()
        try Synthetic.quadrants(input + "/beach.jpg", width: 96, height: 64)
        try write(#"{"version": 1, "photo": "beach.jpg", "effect": "bw"}"#, to: input + "/order.card.json")
        try write(#"{"version": 1, "effect": "sepia"}"#, to: input + "/beach.card.json")
        let output = try Fixtures.scratchDirectory()
        let run = try await cardrender("render", input + "/order.card.json", "--out", output)
        #expect(run.status == 0, "\(run.stderr)")
        let print = try Fixtures.load(output + "/order.print.jpg")
        #expect(print.width == 1748 && print.height == 1240)
        // Black and white: the red quadrant came out grey.
        let pixel = try print.pixel(x: 200, y: 200)
        #expect(pixel.max()! - pixel.min()! < 8, "\(pixel)")
        // A sidecar spec given alone takes the photo beside it.
        let alone = try Fixtures.scratchDirectory()
        let sidecar = try await cardrender("render", input + "/beach.card.json", "--out", alone)
        #expect(sidecar.status == 0, "\(sidecar.stderr)")
        let sepia = try Fixtures.load(alone + "/beach.print.jpg").pixel(x: 200, y: 200)
        #expect(sepia[0] > sepia[2] + 10, "\(sepia)")
        // The photo and its own sidecar named together make one card, not two.
        let both = try Fixtures.scratchDirectory()
        let second = try await cardrender("render", input + "/beach.jpg", input + "/beach.card.json", "--out", both)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(Fixtures.files(under: both).filter { $0.hasSuffix(".print.jpg") }.count == 1)
    }

    /// A spec's photo must lie inside the input folder it was found in: `..`, an absolute
    /// path and a symbolic link leading out are refused by name; inside links are followed;
    /// `--allow-photos-outside-inputs` lets an operator allow it.
    @Test func aSpecCannotReadFilesOutsideItsFolder() async throws {
        let base = try Fixtures.scratchDirectory()
        let orders = base + "/orders", other = base + "/other-order"
        for folder in [orders + "/inner", other] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        try Synthetic.quadrants(other + "/x.jpg")
        try Synthetic.quadrants(orders + "/inner/mine.jpg")
        try FileManager.default.createSymbolicLink(atPath: orders + "/link.jpg", withDestinationPath: other + "/x.jpg")
        try FileManager.default.createSymbolicLink(
            atPath: orders + "/good-link.jpg", withDestinationPath: "inner/mine.jpg")
        try write(#"{"version": 1, "photo": "../other-order/x.jpg"}"#, to: orders + "/up.card.json")
        try write(#"{"version": 1, "photo": "\#(other)/x.jpg"}"#, to: orders + "/absolute.card.json")
        try write(#"{"version": 1, "photo": "link.jpg.missing/../link.jpg"}"#, to: orders + "/tricky.card.json")
        try write(#"{"version": 1, "photo": "inner/../inner/mine.jpg"}"#, to: orders + "/inside.card.json")
        try write(#"{"version": 1, "photo": "../good-link.jpg"}"#, to: orders + "/inner/linked.card.json")
        // link.jpg itself is walked as a photo of the folder: keep it out of this batch.
        let specs =
            ["up", "absolute", "tricky", "inside"].map { orders + "/\($0).card.json" } + [
                orders + "/inner/linked.card.json"
            ]
        let output = try Fixtures.scratchDirectory()
        let run = try await run(["render"] + specs + ["--out", output])
        #expect(run.status == 1, "\(run.stderr)")
        for name in ["up", "absolute"] {
            #expect(run.stderr.contains("\(name).card.json: photo: \""), "\(name): \(run.stderr)")
        }
        #expect(run.stderr.contains("leads outside the input folder"))
        #expect(FileManager.default.fileExists(atPath: output + "/inside.print.jpg"))
        #expect(!FileManager.default.fileExists(atPath: output + "/up.print.jpg"))
        #expect(!FileManager.default.fileExists(atPath: output + "/absolute.print.jpg"))
        // A symbolic link to outside, reached through the folder: refused.
        try write(#"{"version": 1, "photo": "link.jpg"}"#, to: orders + "/via-link.card.json")
        let linked = try await cardrender("render", orders + "/via-link.card.json", "--out", output)
        #expect(linked.status == 1 && linked.stderr.contains("via-link.card.json: photo:"), "\(linked.stderr)")
        // The operator's option allows it.
        let allowed = try await cardrender(
            "render", orders + "/up.card.json", orders + "/via-link.card.json", "--out", output,
            "--allow-photos-outside-inputs")
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(FileManager.default.fileExists(atPath: output + "/via-link.print.jpg"))
    }

    /// The walk follows the spec's rule: a photo in the input folder that is a symbolic link
    /// leading out (`in/l.jpg -> /elsewhere/s.jpg`) is refused by name and the rest render;
    /// a link inside is followed; `--allow-photos-outside-inputs` allows it.
    @Test func aWalkedLinkCannotLeadOutOfItsFolder() async throws {
        let base = try Fixtures.scratchDirectory()
        let input = base + "/in", elsewhere = base + "/elsewhere"
        for folder in [input, elsewhere] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        try Synthetic.quadrants(elsewhere + "/s.jpg")
        try Synthetic.quadrants(input + "/mine.jpg")
        try FileManager.default.createSymbolicLink(atPath: input + "/l.jpg", withDestinationPath: elsewhere + "/s.jpg")
        try FileManager.default.createSymbolicLink(atPath: input + "/inside.jpg", withDestinationPath: "mine.jpg")
        let output = try Fixtures.scratchDirectory()
        let run = try await cardrender("render", input, "--out", output, "--no-cache")
        #expect(run.status == 1, "\(run.stderr)")
        #expect(
            run.stderr.contains("l.jpg") && run.stderr.contains("leading outside the input folder"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output + "/l.print.jpg"))
        #expect(FileManager.default.fileExists(atPath: output + "/mine.print.jpg"))
        #expect(FileManager.default.fileExists(atPath: output + "/inside.print.jpg"))
        let allowed = try await cardrender(
            "render", input, "--out", output, "--no-cache", "--allow-photos-outside-inputs")
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(FileManager.default.fileExists(atPath: output + "/l.print.jpg"))
    }

    /// The gallery's links reach the files whatever their names: `#`, `%`, `?`, spaces and
    /// accents are percent-encoded, so a browser asks for the file, not a fragment or a query.
    @Test func galleryLinksReachFilesWithAnyName() async throws {
        let input = try Fixtures.scratchDirectory()
        let names = ["a#1", "50%", "why?", "été 2024", "x&y"]
        for name in names { try Synthetic.quadrants(input + "/\(name).jpg") }
        let output = try Fixtures.scratchDirectory()
        let run = try await cardrender("render", input, "--out", output)
        #expect(run.status == 0, "\(run.stderr)")
        let html = try String(contentsOfFile: output + "/index.html", encoding: .utf8)
        var links: [String] = []
        for piece in html.components(separatedBy: "href=\"").dropFirst() {
            links.append(String(piece.prefix { $0 != "\"" }))
        }
        #expect(links.count == names.count, "\(links)")
        for link in links {
            let unescaped = link.replacingOccurrences(of: "&amp;", with: "&")
            #expect(!unescaped.contains("#") && !unescaped.contains("?") && !unescaped.contains(" "), "\(link)")
            let path = try #require(unescaped.removingPercentEncoding)
            #expect(FileManager.default.fileExists(atPath: output + "/" + path), "\(link) -> \(path)")
        }
    }
}
