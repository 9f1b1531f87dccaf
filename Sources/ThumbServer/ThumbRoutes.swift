import Hummingbird
import ImageCore
import Logging
import ServerShell

/// The thumbnail routes as a group of the server (`/thumb/<path>?width=N…`): the service
/// answers every method at its path (405 but for GET, HEAD and CORS preflights), some of them
/// on the event loop; its work pool and the disk cache's upkeep run beside it, and its
/// metrics follow the requests' at `/metrics`.
public enum ThumbRoutes {
    /// The group for `service`, mounted at `ThumbService.path`.
    public static func group(_ service: ThumbService, logger: Logger) -> RouteGroup {
        let maintenance = CacheMaintenance(
            cache: service.cache, pool: service.pool, interval: .seconds(600), logger: logger)
        return RouteGroup(
            path: ThumbService.path, label: "thumb", responder: Responder(service: service),
            services: [service.pool, maintenance],
            metrics: {
                service.metrics.exposition(
                    load: service.pool.load, memoryCacheBytes: service.memory.usage.cost,
                    decodedPhotos: service.decodedPhotos)
            },
            answering: service)
    }

    /// Hands each request to the service.
    private struct Responder: HTTPResponder {
        let service: ThumbService

        func respond(to request: Request, context: ServerRequestContext) async throws -> Response {
            await service.respond(to: request)
        }
    }
}
