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

    /// A time as people read it: `2026-11-22 20:31:05 UTC`.
    static func timestamp(_ secondsSince1970: Int) -> String {
        var time = time_t(secondsSince1970)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) UTC"
    }
}
