import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The card studio (`/studio`): a page of plain HTML, CSS and JavaScript (Studio/) compiled
/// into the binary, so a node serves it with nothing beside the executable. It needs no key
/// to load (it holds no data); every call it makes to `/v1` carries the key the person gives.
///
/// Answers carry a Content-Security-Policy that allows nothing from elsewhere (scripts,
/// styles and connections to this origin only; images also from the page's own blob URLs
/// and the empty `data:` icon),
/// no framing, no referrer and no sniffing.
enum StudioPage {
    /// The page's files as compiled in, by name: every file of `Studio/web` (the script is
    /// ES modules by concern, loaded by the browser itself; `ServiceAPITests`' `studioPage`
    /// checks that each file of the folder is served as it is).
    static let files: [String: [UInt8]] = [
        "index.html": PackageResources.index_html,
        "studio.css": PackageResources.studio_css,
        "studio.js": PackageResources.studio_js,
        "state.js": PackageResources.state_js,
        "api.js": PackageResources.api_js,
        "stage.js": PackageResources.stage_js,
        "previews.js": PackageResources.previews_js,
        "gestures.js": PackageResources.gestures_js,
        "form.js": PackageResources.form_js,
        "order.js": PackageResources.order_js,
    ]

    /// The page's files by their path under `StudioRoutes.path` (`""`, `/` and `/index.html`
    /// for the page, `/NAME` for the others in `files`); nil for anything else.
    static func response(file path: Substring, maxPhotoBytes: Int) -> Response? {
        let name = path == "" || path == "/" ? "index.html" : String(path.dropFirst())
        guard path.hasPrefix("/") || path == "", let compiled = files[name], let type = type(of: name) else {
            return nil
        }
        var body = file(name, compiled)
        if name == "index.html" {
            body = body.replacingOccurrences(of: "{{MAX_PHOTO_BYTES}}", with: String(maxPhotoBytes))
        }
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "no-cache"
        headers[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; "
            + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// The media type of a page file, by its extension.
    static func type(of name: String) -> String? {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        default: nil
        }
    }

    /// Where the page's files are read from instead of the binary, for working on the page
    /// without a rebuild (`CARDRENDER_STUDIO_DIR=Sources/CardService/Studio/web`, docs/studio.md).
    static let directory = ProcessInfo.processInfo.environment["CARDRENDER_STUDIO_DIR"]

    /// The file `name` of the page: from `directory` when set, else as compiled in.
    static func file(_ name: String, _ compiled: [UInt8]) -> String {
        if let directory, let text = try? String(contentsOfFile: directory + "/" + name, encoding: .utf8) {
            return text
        }
        return String(decoding: compiled, as: UTF8.self)
    }
}
