import HTTPTypes
import Hummingbird
import NIOCore

/// The server's routing: each request goes to the route group whose path holds it; the shell
/// answers `/healthz` and `/metrics` itself, and 404 for any other path. Every request ends
/// with one log line and its metrics (`AccessLog`).
///
/// A few prefix tests rather than Hummingbird's `Router` with `RouterGroup`s: a router group's
/// middleware runs only for the routes it matches, where `/v1`'s key check must also run for
/// paths it does not know (an unknown path without a key is 401, so paths cannot be probed),
/// and `/thumb` must see every method and the target still percent-encoded. Each group keeps
/// its own router or responder inside (`/v1`'s is a Hummingbird `Router`).
struct ServerResponder: HTTPResponder {
    typealias Context = ServerRequestContext

    let groups: [RouteGroup]
    let metrics: RequestMetrics
    let accessLog: AccessLog

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        let path = request.uri.path
        let route: String
        let response: Response
        if let group = groups.first(where: { $0.holds(path) }) {
            route = group.label
            response = try await group.responder.respond(to: request, context: context)
        } else if path == "/healthz" || path == "/metrics", request.method != .get, request.method != .head {
            // The resource exists, not for this method (RFC 9110 section 15.5.6).
            route = path == "/healthz" ? "healthz" : "metrics"
            response = PlainText.response(.methodNotAllowed, PlainText.methodNotAllowed, allow: "GET, HEAD")
        } else if path == "/healthz" {
            route = "healthz"
            response = Self.text("ok\n", contentType: "text/plain; charset=utf-8")
        } else if path == "/metrics" {
            route = "metrics"
            var text = metrics.exposition()
            for group in groups { if let more = group.metrics { text += await more() } }
            response = Self.text(text, contentType: "text/plain; version=0.0.4; charset=utf-8")
        } else {
            route = "other"
            response = PlainText.response(.notFound, PlainText.notFound)
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
