import CardKit
import Hummingbird
import ImageCore
import Logging
import NIOCore
import OpenAPIHummingbird
import ServerShell
import ServiceLifecycle

/// The postcard API as a group of the server (`/v1`): a Hummingbird `Router` with the
/// generated operations of `openapi.yaml` and the document itself, every request through
/// `ServiceMiddleware` (keys, rates, bodies, the document's checks); the queue that renders
/// what is ordered and the sender of its webhooks run beside it, and its metrics follow the requests' at `/metrics`.
public enum PostcardRoutes {
    /// Where the group is mounted (`openapi.yaml`'s paths begin with it).
    public static let path = "/v1"
    /// The API's document, which needs no key.
    static let documentPath = path + "/openapi.json"

    /// The group for `service`.
    /// - Throws: what registering the generated routes throws (a malformed path: a bug).
    public static func group(_ service: PostcardService, logger: Logger) throws -> RouteGroup {
        let router = Router(context: ServerRequestContext.self)
        router.add(
            middleware: ServiceMiddleware<ServerRequestContext>(
                book: service.book,
                limiter: RateLimiter(
                    rate: service.configuration.requestsPerSecond, burst: 2 * service.configuration.requestsPerSecond),
                failures: RateLimiter(
                    rate: service.configuration.failedAuthentications.perSecond,
                    burst: service.configuration.failedAuthentications.burst),
                maxPhotoBytes: service.configuration.settings.policy.maxFileBytes,
                maxSpecBytes: PostcardService.maxSpecBytes, bodyTimeout: service.configuration.bodyTimeout,
                validator: RequestValidator(), metrics: service.metrics, logger: logger,
                uploads: AsyncPermits(max(2, service.configuration.previewThreads))))
        router.get(RouterPath(documentPath)) { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "no-cache"
            return Response(
                status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }
        let api = PostcardAPI(service: service)
        try api.registerHandlers(on: router)
        return RouteGroup(
            path: path, label: "v1", responder: router.buildResponder(),
            services: [CardQueue(service: service), WebhookDispatcher(service: service, body: api.webhookBody)],
            metrics: { await service.metrics.exposition(book: service.book) })
    }
}
