import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Line-oriented output for the commands: stdout for results, stderr for problems.
enum Console {
    /// Writes one line to standard error.
    static func error(_ line: String) {
        _ = try? FileDescriptor.standardError.writeAll((line + "\n").utf8)
    }

    /// Writes text to standard error as it is (progress lines).
    static func errorRaw(_ text: String) {
        _ = try? FileDescriptor.standardError.writeAll(text.utf8)
    }

    /// Writes one line to standard output.
    static func out(_ line: String) {
        _ = try? FileDescriptor.standardOutput.writeAll((line + "\n").utf8)
    }

    /// Writes bytes to standard output (an image for `-o -`).
    static func out(_ data: Data) {
        _ = try? FileDescriptor.standardOutput.writeAll(data)
    }
}
