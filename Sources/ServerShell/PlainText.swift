import HTTPTypes
import Hummingbird
import NIOCore

/// A refusal in one line of plain text, not cached and not sniffed: the shell's 404 and 405
/// and the thumbnail routes' every refusal share its form.
package enum PlainText {
    /// The words of a 404.
    package static let notFound = "not found."
    /// The words of a 405 (every route of the server answers GET and HEAD).
    package static let methodNotAllowed = "method not allowed: use GET or HEAD."

    /// `status` with `text` and a newline as the body, `Allow` and `Retry-After` when given.
    package static func response(
        _ status: HTTPResponse.Status, _ text: String, allow: String? = nil, retryAfter: Int? = nil
    ) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        if let allow { headers[.allow] = allow }
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(
            status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text + "\n")))
    }
}

extension HTTPField.Name {
    /// Where an answer came from (memory, disk, rendered, joined, tag): written by the
    /// thumbnail routes, read into the access log.
    package static let xCache = HTTPField.Name("X-Cache")!
}
