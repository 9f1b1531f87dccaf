import CardKit
import Hummingbird
import ImageCore
import Logging
import NIOCore
import OpenAPIHummingbird
import ServiceLifecycle

/// Builds `/v1` and `/studio`: the router (the generated operations behind
/// `ServiceMiddleware`, the OpenAPI document and the studio page) and the queue that renders
/// what is ordered. `cardrender serve` puts the router's responder beside `/thumb/`.
public enum PostcardServiceApplication {
    /// The responder for `/v1/…`, the services to run beside the server (the queue), and the
    /// service's metrics as text for `/metrics`.
    /// - Throws: what registering the generated routes throws (a malformed path: a bug).
    public static func build<Context: RemoteAddressRequestContext>(
        service: PostcardService, logger: Logger, context: Context.Type
    ) throws -> (
        responder: any HTTPResponder<Context>, services: [any Service],
        metrics: @Sendable () async -> String
    ) {
        let router = Router(context: Context.self)
        router.add(
            middleware: ServiceMiddleware<Context>(
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
        router.get("/v1/openapi.json") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "no-cache"
            return Response(
                status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }
        let maxPhotoBytes = service.configuration.settings.policy.maxFileBytes
        for path in ["/studio", "/studio/{file}"] {
            router.get(RouterPath(path)) { request, _ in
                StudioPage.response(path: request.uri.path, maxPhotoBytes: maxPhotoBytes)
                    ?? Response(status: .notFound)
            }
        }
        try PostcardAPI(service: service).registerHandlers(on: router)
        return (
            router.buildResponder(), [CardQueue(service: service)],
            { await service.metrics.exposition(book: service.book) }
        )
    }
}
