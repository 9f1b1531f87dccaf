import Foundation
import Testing

@testable import FileUtilities

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct AtomicFileTests {
    /// Names in `directory`, hidden ones included.
    func names(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    func scratch() throws -> String {
        let path = NSTemporaryDirectory() + "cardrender-tests/atomic-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func writeReplacesTheFileAndLeavesNothingElse() throws {
        let directory = try scratch()
        try AtomicFile.write(Array("first".utf8), to: directory + "/out é.txt")
        try AtomicFile.write(Array("second, longer".utf8), to: directory + "/out é.txt")
        #expect(names(directory) == ["out é.txt"])
        #expect(FileManager.default.contents(atPath: directory + "/out é.txt") == Data("second, longer".utf8))
        var info = stat()
        #expect(stat(directory + "/out é.txt", &info) == 0 && info.st_mode & 0o777 == 0o644)
    }

    @Test func createNeverReplaces() throws {
        let directory = try scratch()
        #expect(try AtomicFile.create(Array("one".utf8), at: directory + "/key"))
        #expect(try !AtomicFile.create(Array("two".utf8), at: directory + "/key"))
        #expect(FileManager.default.contents(atPath: directory + "/key") == Data("one".utf8))
        #expect(names(directory) == ["key"])
    }

    @Test func aWriteIntoAMissingDirectoryNamesTheFile() throws {
        let directory = try scratch()
        #expect {
            try AtomicFile.write(Array("x".utf8), to: directory + "/missing/out.txt")
        } throws: { error in
            (error as? AtomicFile.WriteError)?.description.hasPrefix(directory + "/missing/out.txt: cannot be written")
                == true
        }
    }

    /// The names the writer really makes carry its pid and host, and the sweep reads them back.
    @Test func temporaryNamesCarryTheWritersProcessIdAndHost() {
        let name = AtomicFile.temporaryName(for: "beach.print.jpg", pid: 4242)
        #expect(name.hasPrefix(".beach.print.jpg.tmp-4242-\(AtomicFile.hostTag)-"))
        #expect(AtomicFile.owner(ofTemporary: name) == AtomicFile.Writer(host: AtomicFile.hostTag, pid: 4242))
        // A name with dashes and a .tmp- of its own still parses by its last marker.
        let tricky = AtomicFile.temporaryName(for: "a-b.tmp-c.jpg", pid: 77)
        #expect(AtomicFile.owner(ofTemporary: tricky)?.pid == 77)
        for other in [
            "beach.jpg", ".hidden", ".x.tmp-", ".x.tmp-12", ".x.tmp-abc-def", ".x.tmp--5-q", "x.tmp-12-ab",
            ".x.tmp-12-ab",
        ] {
            #expect(AtomicFile.owner(ofTemporary: other) == nil, "\(other)")
        }
    }

    /// Only dead writers' files go: a live process's half-written file stays.
    @Test func sweepRemovesDeadWritersFilesOnly() throws {
        let directory = try scratch()
        let dead = try Self.finishedProcessID()
        let live = try Process.run(URL(fileURLWithPath: "/bin/sleep"), arguments: ["30"])
        defer {
            // SIGKILL: a test runner may start children with SIGTERM blocked.
            kill(live.processIdentifier, SIGKILL)
            live.waitUntilExit()
        }
        let deadName = AtomicFile.temporaryName(for: "a.jpg", pid: dead)
        let liveName = AtomicFile.temporaryName(for: "b.jpg", pid: live.processIdentifier)
        let ownName = AtomicFile.temporaryName(for: "c.jpg", pid: getpid())
        for name in [deadName, liveName, ownName, "d.jpg"] {
            #expect(FileManager.default.createFile(atPath: directory + "/" + name, contents: Data([1])))
        }
        #expect(AtomicFile.removeDeadTemporaries(in: directory) == [deadName])
        #expect(names(directory) == [ownName, liveName, deadName].filter { $0 != deadName }.sorted() + ["d.jpg"])
    }

    /// A shared folder (NFS): another host's file in progress carries a pid that means
    /// nothing here, so it is kept however that pid looks locally, until it is an hour old.
    @Test func sweepKeepsOtherHostsFilesInProgress() throws {
        let directory = try scratch()
        let dead = try Self.finishedProcessID()
        let foreign = AtomicFile.temporaryName(for: "a.jpg", pid: dead, host: "otherhost")
        let foreignOld = AtomicFile.temporaryName(for: "b.jpg", pid: dead, host: "otherhost")
        for name in [foreign, foreignOld] {
            #expect(FileManager.default.createFile(atPath: directory + "/" + name, contents: Data([1])))
        }
        var times = [timespec(tv_sec: time(nil) - 7200, tv_nsec: 0), timespec(tv_sec: time(nil) - 7200, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, directory + "/" + foreignOld, &times, 0) == 0)
        #expect(AtomicFile.removeDeadTemporaries(in: directory) == [foreignOld])
        #expect(names(directory) == [foreign])
    }

    /// The pid of a process that has exited (and been reaped).
    static func finishedProcessID() throws -> pid_t {
        let process = try Process.run(URL(fileURLWithPath: "/bin/true"), arguments: [])
        process.waitUntilExit()
        return process.processIdentifier
    }
}
