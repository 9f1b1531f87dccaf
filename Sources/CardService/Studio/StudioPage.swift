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
    /// The page's files by their path under `StudioRoutes.path` (`""`, `/`, `/index.html`,
    /// `/studio.js`, `/studio.css`); nil for anything else.
    static func response(file name: Substring, maxPhotoBytes: Int) -> Response? {
        let body: String
        let type: String
        switch name {
        case "", "/", "/index.html":
            body = file("index.html", PackageResources.index_html)
                .replacingOccurrences(of: "{{MAX_PHOTO_BYTES}}", with: String(maxPhotoBytes))
            type = "text/html; charset=utf-8"
        case "/studio.js":
            body = file("studio.js", PackageResources.studio_js)
            type = "text/javascript; charset=utf-8"
        case "/studio.css":
            body = file("studio.css", PackageResources.studio_css)
            type = "text/css; charset=utf-8"
        default:
            return nil
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

    /// Where the page's files are read from instead of the binary, for working on the page
    /// without a rebuild (`CARDRENDER_STUDIO_DIR=Sources/CardService/Studio`, docs/studio.md).
    static let directory = ProcessInfo.processInfo.environment["CARDRENDER_STUDIO_DIR"]

    /// The file `name` of the page: from `directory` when set, else as compiled in.
    static func file(_ name: String, _ compiled: [UInt8]) -> String {
        if let directory, let text = try? String(contentsOfFile: directory + "/" + name, encoding: .utf8) {
            return text
        }
        return String(decoding: compiled, as: UTF8.self)
    }
}
