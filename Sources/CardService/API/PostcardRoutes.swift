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
/// what is ordered, the sender of its webhooks and the purge of old events run beside it, and
/// its metrics follow the requests' at `/metrics`.
public enum PostcardRoutes {
    /// Where the group is mounted (`openapi.yaml`'s paths begin with it).
    public static let path = "/v1"
    /// The API's document, which needs no key.
    static let documentPath = path + "/openapi.json"

    /// The group for `service`, its requests within `limits`.
    /// - Throws: what registering the generated routes throws (a malformed path: a bug).
    public static func group(_ service: PostcardService, limits: APILimits = .init(), logger: Logger) throws
        -> RouteGroup
    {
        let router = Router(context: ServerRequestContext.self)
        router.add(
            middleware: ServiceMiddleware<ServerRequestContext>(
                book: service.book, limits: limits, maxPhotoBytes: service.configuration.settings.policy.maxFileBytes,
                maxSpecBytes: PostcardService.maxSpecBytes, uploadPermits: max(2, service.configuration.previewThreads),
                metrics: service.metrics, logger: logger))
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
            services: [
                CardQueue(service: service), WebhookDispatcher(service: service, body: api.webhookBody),
                EventRetention(service: service),
            ],
            metrics: { await service.metrics.exposition(book: service.book) })
    }
}
