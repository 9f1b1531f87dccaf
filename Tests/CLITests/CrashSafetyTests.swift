import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `kill -9` at the worst instants, reached deterministically: the binary stops itself at a
/// failpoint (`CARDRENDER_FAILPOINT`, see `AtomicFile`), the test kills it there, then
/// checks what is on disk and that a re-run is whole.
@Suite(.libvips) struct CrashSafetyTests {
    /// Two small photos to render.
    func photos() throws -> String {
        let directory = try Fixtures.scratchDirectory("photos")
        for index in 0..<2 {
            try Synthetic.image(directory + "/p\(index).png", width: 640, height: 440, bands: 3) { x, y in
                [UInt8((x + index * 90) % 256), UInt8(y % 256), UInt8((x + y) % 256)]
            }
        }
        return directory
    }

    /// Every file under `directory`, hidden ones included.
    func everything(_ directory: String) -> [String] {
        Fixtures.files(under: directory)
    }

    /// Killed halfway through writing a print file: nothing of it is on disk, not even a
    /// temporary name (the file had none yet).
    @Test func killedMidWriteLeavesNoFile() throws {
        let input = try photos()
        let output = try Fixtures.scratchDirectory("out")
        let cache = try Fixtures.scratchDirectory("cache")
        let child = try StoppableProcess(
            Tools.cardrender, ["render", input, "--out", output, "--cache", cache, "--jobs", "1", "--quiet"],
            environment: ["CARDRENDER_FAILPOINT": "stop-mid-write@.print.jpg"])
        #expect(child.wait(upTo: 120) == .stopped(signal: SIGSTOP))
        child.kill()
        #expect(everything(output).isEmpty, "\(everything(output))")
        #expect(!everything(cache).contains { $0.contains(".tmp-") })

        let again = try Tools.run(Tools.cardrender, ["render", input, "--out", output, "--cache", cache])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("2 of 2 cards rendered"))
        #expect(!everything(output).contains { $0.contains(".tmp-") })
    }

    /// Killed between naming a finished file and renaming it over its destination: the one
    /// window where a temporary name exists. The re-run removes it (its writer is dead).
    @Test func killedBeforeRenameLeavesATemporaryThatTheNextRunRemoves() throws {
        let input = try photos()
        let output = try Fixtures.scratchDirectory("out")
        let child = try StoppableProcess(
            Tools.cardrender, ["thumb", input, "--width", "120", "--out", output, "--no-cache", "--jobs", "1"],
            environment: ["CARDRENDER_FAILPOINT": "stop-before-rename@.png"])
        #expect(child.wait(upTo: 120) == .stopped(signal: SIGSTOP))
        child.kill()
        let left = everything(output).filter { $0.contains(".tmp-\(child.pid)-") }
        #expect(left.count == 1, "\(everything(output))")

        let again = try Tools.run(Tools.cardrender, ["thumb", input, "--width", "120", "--out", output, "--no-cache"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("removed") && again.stderr.contains(left.first ?? "?"))
        #expect(everything(output) == ["p0.png", "p1.png"])
    }

    /// A cache entry is linked in whole or not at all: a writer killed while writing one
    /// leaves no trace in the cache, and the next run stores and verifies every entry.
    @Test func killedWhileStoringACacheEntryLeavesACacheThatWorks() throws {
        let input = try photos()
        let output = try Fixtures.scratchDirectory("out")
        let cache = try Fixtures.scratchDirectory("cache")
        let child = try StoppableProcess(
            Tools.cardrender, ["render", input, "--out", output, "--cache", cache, "--jobs", "1", "--quiet"],
            environment: ["CARDRENDER_FAILPOINT": "stop-mid-write@/objects/"])
        let state = child.wait(upTo: 120)
        child.kill()
        #expect(state == .stopped(signal: SIGSTOP))
        #expect(!everything(cache).contains { $0.contains(".tmp-") })
        #expect(!everything(cache).contains { $0.hasPrefix("objects/") }, "no object may appear half-written")

        let again = try Tools.run(Tools.cardrender, ["render", input, "--out", output, "--cache", cache])
        #expect(again.status == 0, "\(again.stderr)")
        let verify = try Tools.run(Tools.cardrender, ["cache", "verify", "--cache", cache])
        #expect(verify.stdoutText.contains("checked 2 entries, removed 0 corrupt"), "\(verify.stdoutText)")
    }
}
