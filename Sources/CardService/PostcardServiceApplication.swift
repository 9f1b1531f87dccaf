import Hummingbird
import Logging
import NIOCore
import OpenAPIHummingbird
import ServiceLifecycle

/// Builds `/v1` and `/studio`: the router (the generated operations behind
/// `ServiceMiddleware`, the OpenAPI document and the studio page) and the queue that renders
/// what is ordered. `cardrender serve` puts the router's
/// responder beside `/thumb/`.
public enum PostcardServiceApplication {
    /// The responder for `/v1/…` and the services to run beside the server (the queue).
    /// - Throws: what registering the generated routes throws (a malformed path: a bug).
    public static func build(service: PostcardService, logger: Logger) throws -> (
        responder: any HTTPResponder<BasicRequestContext>, services: [any Service]
    ) {
        let router = Router(context: BasicRequestContext.self)
        router.add(
            middleware: ServiceMiddleware(
                book: service.book,
                limiter: RateLimiter(
                    rate: service.configuration.requestsPerSecond, burst: 2 * service.configuration.requestsPerSecond),
                maxPhotoBytes: service.configuration.settings.policy.maxFileBytes,
                maxSpecBytes: PostcardService.maxSpecBytes, logger: logger))
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
        return (router.buildResponder(), [CardQueue(service: service)])
    }
}
