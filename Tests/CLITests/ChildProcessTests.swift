import Foundation
import TestSupport
import Testing

/// The tests' children inherit none of the test process's open files (a long-lived child that
/// held Foundation's exit socket of another child once hung that child's wait).
struct ChildProcessTests {
    @Test func aChildHasOnlyStandardInputOutputAndError() throws {
        // An open file of this process, which the child must not see.
        let held = open("/dev/null", O_RDONLY)
        defer { close(held) }
        #expect(held > 2)
        let listed = try Tools.run("/bin/ls", ["/proc/self/fd"])
        #expect(listed.status == 0, "\(listed.stderr)")
        // ls's own descriptor for the listing is the fourth.
        let descriptors = listed.stdoutText.split(separator: "\n").compactMap { Int($0) }.sorted()
        #expect(descriptors == [0, 1, 2, 3], "\(descriptors)")
    }
}
