import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Writes files so that readers see the whole new file or none of it.
public enum AtomicFile {
    /// A file could not be written; names the file and the cause.
    public struct WriteError: Error, Sendable, CustomStringConvertible {
        /// The destination path.
        public let file: String
        /// What went wrong (the system's words).
        public let reason: String

        public var description: String { "\(file): cannot be written: \(reason)." }
    }

    /// Writes `data` to a temporary file beside `path`, flushes it, then renames it over
    /// `path`. On any failure the temporary file is removed and `path` is untouched.
    /// - Parameters:
    ///   - data: the whole contents.
    ///   - path: the destination; its directory must exist.
    ///   - durable: `fsync` before the rename (on by default).
    /// - Throws: `WriteError` naming `path`.
    public static func write(_ data: Data, to path: String, durable: Bool = true) throws(WriteError) {
        let file = FilePath(path)
        let directory = file.removingLastComponent().string
        let base = file.lastComponent?.string ?? path
        var template = Array(
            ((directory.isEmpty ? "." : directory) + "/." + base + ".tmp-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw WriteError(file: path, reason: errnoText()) }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var failure: String?
        data.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let wrote = Glibc.write(descriptor, raw.baseAddress! + done, raw.count - done)
                if wrote < 0 && errno == EINTR { continue }
                guard wrote > 0 else {
                    failure = errnoText()
                    return
                }
                done += wrote
            }
        }
        if failure == nil {
            fchmod(descriptor, 0o644)
            if durable && fsync(descriptor) != 0 { failure = errnoText() }
        }
        if close(descriptor) != 0 && failure == nil { failure = errnoText() }
        if failure == nil && rename(temporary, path) != 0 { failure = errnoText() }
        if let failure {
            unlink(temporary)
            throw WriteError(file: path, reason: failure)
        }
    }
}
