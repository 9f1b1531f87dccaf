import Foundation
import SystemPackage
import TestSupport
import Testing

@testable import FileUtilities

/// Files are opened only from beneath their directory, links included, by `openat2` and by
/// the fallback for kernels without it, which checks before it opens: a FIFO or a link out
/// is refused without being opened for reading.
struct ConfinedDirectoryTests {
    /// A folder with a photo, a link to it, a link leading out, a FIFO and a sub-folder.
    static func folder() throws -> (root: String, outside: String) {
        let scratch = try Fixtures.scratchDirectory("confined")
        let root = scratch + "/in"
        try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
        try Data("inside".utf8).write(to: URL(fileURLWithPath: root + "/a.jpg"))
        try Data("outside".utf8).write(to: URL(fileURLWithPath: scratch + "/secret.jpg"))
        try FileManager.default.createSymbolicLink(atPath: root + "/link.jpg", withDestinationPath: "a.jpg")
        try FileManager.default.createSymbolicLink(
            atPath: root + "/out.jpg", withDestinationPath: scratch + "/secret.jpg")
        #expect(mkfifo(root + "/fifo.jpg", 0o600) == 0)
        return (root, scratch + "/secret.jpg")
    }

    static func read(_ descriptor: Int32) throws -> String {
        let file = FileDescriptor(rawValue: descriptor)
        defer { try? file.close() }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = try buffer.withUnsafeMutableBytes { try file.read(into: $0) }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    @Test func openat2AndTheFallbackDecideAlike() throws {
        let (root, _) = try Self.folder()
        let directory = try ConfinedDirectory(root)
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
        for name in ["a.jpg", "link.jpg"] {
            #expect(try Self.read(try directory.open(name).rawValue) == "inside")
            #expect(try Self.read(try directory.openChecking(name, flags: flags)) == "inside")
        }
        for (name, refusal) in [
            ("out.jpg", ConfinedDirectory.OpenError.outside), ("../secret.jpg", .outside),
            ("fifo.jpg", .notRegularFile),
            ("sub", .notRegularFile),
        ] {
            #expect(throws: refusal) { try directory.open(name) }
            // The fallback refuses before opening anything for reading.
            #expect(throws: refusal) { try directory.openChecking(name, flags: flags) }
        }
    }
}
