import Hummingbird
import ServerShell

/// The card studio as a group of the server (`/studio`): its page, script and style sheet
/// (`StudioPage`), no key needed.
public enum StudioRoutes {
    /// Where the group is mounted.
    public static let path = "/studio"

    /// The group, whose page takes photos of up to `maxPhotoBytes`.
    public static func group(maxPhotoBytes: Int) -> RouteGroup {
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: Problems())
        for route in [path, path + "/{file}"] {
            router.get(RouterPath(route)) { request, _ in
                StudioPage.response(file: request.uri.path.dropFirst(path.count), maxPhotoBytes: maxPhotoBytes)
                    ?? Response(status: .notFound)
            }
        }
        return RouteGroup(path: path, label: "studio", responder: router.buildResponder())
    }

    /// The router's refusals (a path or a method the studio does not serve) as problem+json,
    /// as `/v1`'s are.
    private struct Problems: RouterMiddleware {
        func handle(
            _ request: Request, context: ServerRequestContext,
            next: (Request, ServerRequestContext) async throws -> Response
        ) async throws -> Response {
            do {
                return try await next(request, context)
            } catch let error as HTTPError {
                return Problem(error.status, error.status.reasonPhrase + ".").response()
            }
        }
    }
}
