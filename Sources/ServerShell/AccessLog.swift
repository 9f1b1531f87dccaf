import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One log line per request (method, path, status, duration, bytes, cache source) on
/// standard error, and the request metrics.
///
/// The line has swift-log's `StreamLogHandler` layout (the server's other messages go
/// through it): `2026-11-23T22:49:44+0000 info cardrender.serve: bytes=72959 cache=memory
/// duration_ms=0.155 method=GET path=/thumb/a.jpg?width=200 status=200 [ThumbServer] request`.
/// It is written here rather than through swift-log because a cache hit is a few
/// microseconds of work and `StreamLogHandler` formats the time (`localtime_r`, `strftime`)
/// and flushes a `FILE` under a lock on every line, a tenth of a hit's cost as profiled:
/// this formats the time once a second and writes each line with one `write(2)`, which
/// keeps lines whole when several threads log at once.
package final class AccessLog: Sendable {
    package let logger: Logger
    package let metrics: RequestMetrics
    private let enabled: Bool
    private let stamp = Mutex<(second: Int, text: String)>((-1, ""))

    package init(logger: Logger, metrics: RequestMetrics) {
        self.logger = logger
        self.metrics = metrics
        enabled = logger.logLevel <= .info
    }

    /// Counts and logs one finished request.
    /// - Parameters:
    ///   - target: the request target as sent (path and query); written with its secrets
    ///     redacted (`redacted`).
    ///   - bytes: the body's length (`Content-Length`), nil for none.
    ///   - source: where a thumbnail came from (`X-Cache`), nil for other routes.
    package func record(
        method: String, target: String, route: String, status: Int, bytes: String?, source: String?,
        duration: Duration
    ) {
        metrics.request(route: route, status: status, duration: duration)
        guard enabled else { return }
        let microseconds = duration.nanoseconds / 1000
        let milliseconds = "\(microseconds / 1000).\(String(microseconds % 1000 + 1000).dropFirst())"
        var line = "\(now()) info \(logger.label): bytes=\(bytes ?? "0") "
        if let source { line += "cache=\(source) " }
        // Redacted here, past the level check: a server logging only problems pays nothing.
        line +=
            "duration_ms=\(milliseconds) method=\(method) path=\(Self.redacted(target)) status=\(status) [ThumbServer] request\n"
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(2, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return  // standard error closed or full: the line is lost, the request is not
                }
            }
        }
    }

    /// `target` with every query parameter that may hold a secret replaced by `REDACTED`:
    /// one whose name (percent-decoded) speaks of a key, token, secret, password, auth,
    /// session or credential, and any part that holds an API key (`crk_`) however it is
    /// encoded. A key sent in the URL by mistake never reaches a log.
    package static func redacted(_ target: String) -> String {
        guard let question = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return target }
        let query = target[target.index(after: question)...]
        // The hit path's queries (`width=200&format=webp`) have none of these: answered at once.
        guard
            query.utf8.contains(UInt8(ascii: "%")) || query.utf8.contains(UInt8(ascii: "+"))
                || Self.mentionsSecret(query)
        else { return target }
        let parts = query.split(separator: "&", omittingEmptySubsequences: false).map { part -> String in
            let decoded =
                (String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part))
                .lowercased()
            guard Self.mentionsSecret(decoded) else { return String(part) }
            // The name kept when it is plain text and holds no key itself.
            if let equals = part.firstIndex(of: "="), !part[..<equals].contains("%"),
                !part[..<equals].lowercased().contains("crk_")
            {
                return part[..<equals] + "=REDACTED"
            }
            return "REDACTED"
        }
        return target[...question] + parts.joined(separator: "&")
    }

    private static let secretWords: [[UInt8]] = [
        "crk_", "key", "token", "secret", "pass", "auth", "session", "credential", "bearer",
    ].map { Array($0.utf8) }

    /// Whether `text` holds one of `secretWords`, ASCII letters compared in either case (on
    /// the bytes: Foundation's search cost the hit path 9 % of its time, see RESULTS.md).
    private static func mentionsSecret(_ text: some StringProtocol) -> Bool {
        let bytes = Array(text.utf8)
        func lower(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte + 32 : byte }
        return secretWords.contains { word in
            guard bytes.count >= word.count else { return false }
            return (0...(bytes.count - word.count)).contains { start in
                word.indices.allSatisfy { lower(bytes[start + $0]) == word[$0] }
            }
        }
    }

    /// The local time as `StreamLogHandler` writes it, made once per second.
    private func now() -> String {
        var time = time_t()
        Glibc.time(&time)
        let second = Int(time)
        if let text = stamp.withLock({ $0.second == second ? $0.text : nil }) { return text }
        var parts = tm()
        localtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        let text = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        stamp.withLock { $0 = (second, text) }
        return text
    }
}
