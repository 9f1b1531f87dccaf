import FileUtilities
import Foundation
import SystemPackage
import TestSupport
import Testing

/// `readAll` returns exactly the file's bytes: sized by fstat, capped by the limit, and read
/// on in chunks when the size fstat gives is not the whole story (/proc files say 0).
struct ReadAllTests {
    @Test("a 3 MiB file, an empty one, a limit, and a /proc file whose fstat size is 0")
    func readsExactly() throws {
        let directory = try Fixtures.scratchDirectory()
        let bytes = (0..<(3 << 20) + 7).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        let path = directory + "/big.bin"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let descriptor = try FileDescriptor.open(path, .readOnly)
        defer { try? descriptor.close() }
        #expect(try descriptor.readAll() == bytes)
        #expect(try descriptor.readAll(limit: 1000) == Array(bytes.prefix(1000)))

        let empty = directory + "/empty.bin"
        try Data().write(to: URL(fileURLWithPath: empty))
        let emptyDescriptor = try FileDescriptor.open(empty, .readOnly)
        defer { try? emptyDescriptor.close() }
        #expect(try emptyDescriptor.readAll().isEmpty)

        let proc = try FileDescriptor.open("/proc/self/status", .readOnly)
        defer { try? proc.close() }
        let status = String(decoding: try proc.readAll(), as: UTF8.self)
        #expect(status.hasPrefix("Name:") && status.contains("\nPid:"))
    }
}
