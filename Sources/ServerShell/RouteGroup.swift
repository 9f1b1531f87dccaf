import Hummingbird
import ServiceLifecycle

/// Routes mounted at one path of the server: the thumbnails at `/thumb`, the postcard API at
/// `/v1`, the studio at `/studio`. Each module that serves HTTP makes its own group, with its
/// path written there once; `ServerApplication.build` mounts them beside `/healthz` and
/// `/metrics`.
///
/// A group receives every request whose path is its own or below it, in any method and with
/// the target as sent (still percent-encoded: `/thumb` confines paths itself), and answers
/// the ones it does not know (404, 405) in its own words.
public struct RouteGroup: Sendable {
    /// Where the group is mounted: `/thumb`, `/v1`, `/studio` (no trailing slash).
    public let path: String
    /// The group's name in the access log and in `cardrender_http_requests_total{route}`.
    public let label: String
    /// Answers the group's requests.
    public let responder: any HTTPResponder<ServerRequestContext>
    /// Run beside the server for as long as it runs (a work pool, a queue, cache upkeep).
    public let services: [any Service]
    /// The group's part of `/metrics`, in Prometheus text, read on each scrape.
    public let metrics: (@Sendable () async -> String)?
    /// Answers some requests on the event loop that read them (see `EventLoopAnswering`).
    let answering: (any EventLoopAnswering)?

    /// A group of routes at `path`.
    package init(
        path: String, label: String, responder: any HTTPResponder<ServerRequestContext>, services: [any Service] = [],
        metrics: (@Sendable () async -> String)? = nil, answering: (any EventLoopAnswering)? = nil
    ) {
        self.path = path
        self.label = label
        self.responder = responder
        self.services = services
        self.metrics = metrics
        self.answering = answering
    }

    /// Whether a request for `requestPath` is this group's: its path itself, or anything below
    /// it (`/thumb/…`), compared byte for byte (a combining mark after the slash must not make
    /// another path look like one of the group's).
    func holds(_ requestPath: String) -> Bool {
        let bytes = requestPath.utf8
        guard bytes.starts(with: path.utf8) else { return false }
        return bytes.count == path.utf8.count
            || bytes[bytes.index(bytes.startIndex, offsetBy: path.utf8.count)] == UInt8(ascii: "/")
    }
}
