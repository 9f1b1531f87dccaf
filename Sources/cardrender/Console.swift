import Foundation

/// Line-oriented output for the commands: stdout for results, stderr for problems.
enum Console {
    /// Writes one line to standard error.
    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Writes one line to standard output.
    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
