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
        for route in [path, path + "/{file}"] {
            router.get(RouterPath(route)) { request, _ in
                StudioPage.response(file: request.uri.path.dropFirst(path.count), maxPhotoBytes: maxPhotoBytes)
                    ?? Response(status: .notFound)
            }
        }
        return RouteGroup(path: path, label: "studio", responder: router.buildResponder())
    }
}
