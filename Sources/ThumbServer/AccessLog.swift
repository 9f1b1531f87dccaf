import HTTPTypes
import Hummingbird
import Logging

/// One structured log line per request (method, path, status, duration, bytes, cache
/// source) and the request metrics.
struct AccessLog: Sendable {
    let logger: Logger
    let metrics: ServerMetrics

    func record(request: Request, route: String, response: Response, duration: Duration) {
        let status = response.status.code
        metrics.request(route: route, status: status, duration: duration)
        guard logger.logLevel <= .info else { return }
        let microseconds = duration.nanoseconds / 1000
        var metadata: Logger.Metadata = [
            "method": "\(request.method.rawValue)",
            "path": "\(request.uri.string)",
            "status": "\(status)",
            "duration_ms": "\(microseconds / 1000).\(String(microseconds % 1000 + 1000).dropFirst())",
            "bytes": "\(response.headers[.contentLength] ?? "0")",
        ]
        if let source = response.headers[.xCache] { metadata["cache"] = "\(source)" }
        logger.info("request", metadata: metadata)
    }
}
