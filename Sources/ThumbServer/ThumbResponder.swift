import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The server's routes: `/thumb/…`, `/healthz`, `/metrics`, and `/v1/…` and `/studio` when
/// the postcard service is on; anything else is 404.
///
/// A plain responder rather than a `Router`: `/thumb` needs the raw, still-encoded path (its
/// checks are in `RootDirectory`), and a few prefix tests are all the routing there is; `/v1`
/// goes to the service's own router. Every request ends with one log line and its metrics
/// (`AccessLog`).
struct ThumbResponder: HTTPResponder {
    typealias Context = ServerRequestContext

    let service: ThumbService
    let accessLog: AccessLog
    /// The postcard service's routes (`/v1/…`, `/studio`), if it is on.
    let api: (any HTTPResponder<ServerRequestContext>)?
    /// More of `/metrics`: the postcard service's.
    let moreMetrics: [@Sendable () async -> String]

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        let path = request.uri.path
        let route: String
        let response: Response
        if path.hasPrefix(ThumbService.prefix) {
            route = "thumb"
            response = await service.respond(to: request)
        } else if let api, path == "/v1" || path.hasPrefix("/v1/") || path == "/studio" || path.hasPrefix("/studio/") {
            route = path.hasPrefix("/v1") ? "v1" : "studio"
            response = try await api.respond(to: request, context: context)
        } else if path == "/healthz" || path == "/metrics", request.method != .get, request.method != .head {
            // As /thumb/ answers: the resource exists, not for this method (RFC 9110 section 15.5.6).
            route = path == "/healthz" ? "healthz" : "metrics"
            response = ThumbService.response(for: .methodNotAllowed)
        } else if path == "/healthz" {
            route = "healthz"
            response = Self.text("ok\n", contentType: "text/plain; charset=utf-8")
        } else if path == "/metrics" {
            route = "metrics"
            var text = service.metrics.exposition(
                load: service.pool.load, memoryCacheBytes: service.memory.usage.bytes,
                decodedPhotos: service.decodedPhotos)
            for more in moreMetrics { text += await more() }
            response = Self.text(text, contentType: "text/plain; version=0.0.4; charset=utf-8")
        } else {
            route = "other"
            response = ThumbService.response(for: .notFound)
        }
        accessLog.record(
            method: request.method.rawValue, target: request.uri.string, route: route,
            status: response.status.code,
            bytes: response.headers[.contentLength], source: response.headers[.xCache],
            duration: ContinuousClock.now - started)
        return response
    }

    private static func text(_ text: String, contentType: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
