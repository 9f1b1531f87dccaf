import Foundation
import ImageCore
import TestSupport
import Testing
import VipsKit

#if canImport(Glibc)
    import Glibc
#endif

/// The disk cache through the built binary: re-runs, several processes, SIGKILL, commands.
@Suite(.libvips) struct CacheCommandTests {
    /// A directory of a few small distinct photos made by the test.
    func photos(_ count: Int) throws -> String {
        let directory = try Fixtures.scratchDirectory("photos")
        for index in 0..<count {
            try Synthetic.image(directory + "/p\(index).png", width: 600 + 10 * index, height: 420, bands: 3) { x, y in
                [UInt8((x * 3 + index * 40) % 256), UInt8((y * 5) % 256), UInt8((x + y + index) % 256)]
            }
        }
        return directory
    }

    @Test func rerunOfAnUnchangedBatchRendersNothing() throws {
        let input = try photos(3)
        let cache = try Fixtures.scratchDirectory("cache")
        let first = try Fixtures.scratchDirectory("out")
        let second = try Fixtures.scratchDirectory("out")
        let run1 = try Tools.run(
            ThumbCommandTests.binary, ["render", input, "--out", first, "--cache", cache, "--frame", "love/hearts"])
        #expect(run1.status == 0, "\(run1.stderr)")
        let run2 = try Tools.run(
            ThumbCommandTests.binary, ["render", input, "--out", second, "--cache", cache, "--frame", "love/hearts"])
        #expect(run2.status == 0)
        #expect(run2.stderr.contains("3 from the cache"))
        let report = try String(contentsOfFile: second + "/report.json", encoding: .utf8)
        #expect(report.components(separatedBy: "\"cached\" : true").count == 4)
        for file in Fixtures.files(under: first) where file.hasSuffix(".jpg") || file.hasSuffix(".png") {
            #expect(
                FileManager.default.contents(atPath: first + "/" + file)
                    == FileManager.default.contents(atPath: second + "/" + file), "\(file)")
        }
        // Another setting is another entry.
        let run3 = try Tools.run(
            ThumbCommandTests.binary, ["render", input, "--out", second, "--cache", cache, "--frame", "love/rose"])
        #expect(!run3.stderr.contains("from the cache"))
        // 6 cards and the 2 frames' rendered art at two sizes each, the print's and the
        // sample's (one miss each, in the first run with that frame; the second run's cards
        // were all hits, so it never asked for the art).
        let stats = try Tools.run(ThumbCommandTests.binary, ["cache", "stats", "--cache", cache])
        #expect(stats.stdoutText.contains("entries: 10"))
        #expect(stats.stdoutText.contains("hits 3, misses 10"))
    }

    /// Four processes on one cache at once: every store succeeds (no process removes
    /// another's files in flight), each entry is stored once, and the outputs agree.
    @Test func severalProcessesShareOneCache() throws {
        let input = try photos(4)
        let cache = try Fixtures.scratchDirectory("cache")
        var processes: [(Process, String, String)] = []
        for _ in 0..<4 {
            let output = try Fixtures.scratchDirectory("out")
            let errors = output + ".stderr"
            _ = FileManager.default.createFile(atPath: errors, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: ThumbCommandTests.binary)
            process.arguments = [
                "thumb", input, "--width", "150", "--format", "webp", "--out", output, "--cache", cache, "-q",
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
            try process.run()
            processes.append((process, output, errors))
        }
        var reference: [String: Data] = [:]
        for (process, output, errors) in processes {
            process.waitUntilExit()
            let stderr = try String(contentsOfFile: errors, encoding: .utf8)
            #expect(process.terminationStatus == 0, "\(stderr)")
            #expect(stderr.isEmpty, "a process reported: \(stderr)")
            let files = Fixtures.files(under: output)
            #expect(files.count == 4)
            for file in files {
                let data = try #require(FileManager.default.contents(atPath: output + "/" + file))
                #expect(try ImageData(copying: data, name: file).header().width == 150)
                if let first = reference[file] { #expect(first == data, "\(file) differs between processes") }
                reference[file] = data
            }
        }
        let verify = try Tools.run(ThumbCommandTests.binary, ["cache", "verify", "--cache", cache])
        #expect(verify.status == 0)
        #expect(verify.stdoutText.contains("checked 4 entries, removed 0 corrupt"))
        let stats = try Tools.run(ThumbCommandTests.binary, ["cache", "stats", "--cache", cache])
        #expect(stats.stdoutText.contains("stores 4,"), "\(stats.stdoutText)")
        #expect(!Fixtures.files(under: cache).contains { $0.contains(".tmp-") })
    }

    @Test func gcTrimsToTheBoundAndNoCacheTouchesNothing() throws {
        let input = try photos(3)
        let cache = try Fixtures.scratchDirectory("cache")
        let output = try Fixtures.scratchDirectory("out")
        let run = try Tools.run(
            ThumbCommandTests.binary, ["thumb", input, "--width", "300", "--out", output, "--cache", cache, "-q"])
        #expect(run.status == 0)
        let gc = try Tools.run(ThumbCommandTests.binary, ["cache", "gc", "--cache", cache, "--max-size", "1K"])
        #expect(gc.stdoutText.contains("removed 3 entries"))
        let untouched = try Fixtures.scratchDirectory("cache")
        _ = try Tools.run(
            ThumbCommandTests.binary,
            ["thumb", input, "--width", "300", "--out", output, "--cache", untouched, "--no-cache", "-q"])
        #expect(Fixtures.files(under: untouched).isEmpty)
    }
}
