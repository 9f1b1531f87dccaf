internal import CVips

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A libvips operation failed: which operation, on which file, and libvips's own words.
public struct VipsError: Error, Sendable, CustomStringConvertible {
    /// The libvips operation nickname, e.g. `thumbnail_source` or `jpegsave_buffer`.
    public let operation: String
    /// The file or input name the operation worked on, when known.
    public let file: String?
    /// libvips's error text, trimmed (process-wide buffer; see `vipsCall`).
    public let message: String

    public init(operation: String, file: String?, message: String) {
        self.operation = operation
        self.file = file
        self.message = message
    }

    public var description: String {
        let subject = file.map { "\($0): " } ?? ""
        let detail = message.isEmpty ? "libvips gave no reason" : message
        return "\(subject)libvips \(operation) failed: \(detail)"
    }
}

/// The one gate every fallible libvips call goes through.
///
/// libvips reports failure by a non-zero return (or NULL) and text in a process-wide
/// error buffer. Under many threads that text may mix in another job's words, so the
/// error we throw is tagged first with what we know for sure (operation, file) and the
/// buffer text is copied with `vips_error_buffer_copy()`, which also clears it.
/// - Parameters:
///   - operation: the libvips nickname, reported in the error.
///   - file: the input the call works on, reported in the error.
///   - body: the C call; returns libvips's status (0 is success).
/// - Throws: `VipsError` when `body` returns non-zero.
@inline(__always)
func vipsCall(_ operation: String, file: String?, _ body: () -> Int32) throws(VipsError) {
    guard body() == 0 else { throw takeVipsError(operation, file: file) }
}

/// Builds a `VipsError` from libvips's error buffer and clears the buffer.
func takeVipsError(_ operation: String, file: String?) -> VipsError {
    var text = ""
    if let buffer = vips_error_buffer_copy() {
        text = String(cString: buffer)
        g_free(buffer)
    }
    return VipsError(operation: operation, file: file, message: vipsErrorDetail(text))
}

/// What of the error buffer's `text` is worth reporting: the first three distinct lines,
/// without those that never explain a failure. Repeated lines (one per failed tile) say
/// nothing new; "unable to write to target" only says the pipeline stopped (the cause is
/// the line before); "is not in a known format" is left in the buffer by format probing
/// (`acceptedFormat`, which reports unknown formats itself), maybe by another worker.
func vipsErrorDetail(_ text: String) -> String {
    var seen: [String] = []
    for line in text.split(separator: "\n").map(trimmed)
    where !line.isEmpty && !seen.contains(line) && seen.count < 3
        && !line.contains("unable to write to target") && !line.contains("is not in a known format")
    {
        seen.append(line)
    }
    return seen.joined(separator: "; ")
}

/// `text` without leading and trailing white space.
func trimmed(_ text: Substring) -> String {
    String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
}
