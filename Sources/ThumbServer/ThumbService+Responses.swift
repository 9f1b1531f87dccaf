import CardPipeline
import HTTPTypes
import Hummingbird
import ImageCore
import Logging
import NIOCore
import ServerShell
import Thumbnails

#if canImport(Glibc)
    import Glibc
#endif

extension ThumbService {
    /// The response to a `/thumb/…` request: the thumbnail, a 304, or the refusal's status and text.
    func respond(to request: Request) async -> Response {
        // `/thumb` alone names no photo: 404, as any path the server does not serve.
        if request.uri.path.utf8.count == Self.path.utf8.count { return Self.response(for: .notFound) }
        if request.method == .options, !configuration.allowedOrigins.isEmpty {
            var headers = HTTPFields()
            headers[.accessControlAllowMethods] = "GET, HEAD"
            headers[.accessControlMaxAge] = "86400"
            headers[.cacheControl] = "no-store"
            decorate(&headers, asked: nil, requestHeaders: request.headers)
            return Response(status: .noContent, headers: headers)
        }
        let answer: ImmediateAnswer
        do {
            answer = try await thumbnail(
                method: request.method, path: request.uri.path, query: request.uri.query, headers: request.headers)
        } catch {
            let refusal = ThumbRequestError.from(error, retryAfter: configuration.retryAfter)
            if refusal == .internalError {
                logger.error("thumbnail failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            } else if case .unprocessable = refusal, let error = error as? ImageInputError {
                logger.notice("image refused", metadata: ["error": "\(error)"])
            }
            if let fallback = await fallback(for: refusal, request: request) { return fallback }
            var response = Self.response(for: refusal)
            decorate(&response.headers, asked: nil, requestHeaders: request.headers)
            return response
        }
        return Response(
            status: answer.status, headers: answer.headers,
            body: answer.body.map { ResponseBody(byteBuffer: $0) } ?? .init())
    }

    /// `--fallback-image`: for a photo missing (404), refused (415) or damaged (422), that
    /// image fitted to the box asked, with the true status and `Cache-Control: no-store`
    /// (the log line and the metrics still count the failure). Nil without a fallback image,
    /// for other refusals, or when the request itself is at fault (its parameters, its
    /// signature), or when the fallback cannot be made now (no worker free).
    func fallback(for refusal: ThumbRequestError, request: Request) async -> Response? {
        guard let image = configuration.fallbackImage, [404, 415, 422].contains(refusal.status.code),
            request.method == .get || request.method == .head,
            let asked = try? asked(
                method: request.method, path: request.uri.path, query: request.uri.query, headers: request.headers)
        else { return nil }
        let identity = "fallback\n\(asked.request.key)\n\(asked.options.format.rawValue)\n\(asked.options.quality)"
        var entry = memory.value(for: identity)
        if entry == nil {
            guard
                let made = try? await pool.run({ [thumbnailer] in
                    try thumbnailer.thumbnailer.thumbnail(of: image, request: asked.request, options: asked.options)
                })
            else { return nil }
            let fitted = ReadyThumbnail(
                body: ByteBuffer(bytes: made.data), etag: "\"fallback\"", contentType: made.mimeType, modified: 0,
                width: made.width, height: made.height, maxAge: 0, frames: Self.framesHeader(made))
            memory.insert(fitted, for: identity)
            entry = fitted
        }
        guard let entry else { return nil }
        metrics.fallbackSent()
        var headers = HTTPFields()
        headers[.contentType] = entry.contentHeaders[.contentType]
        headers[.imageSize] = entry.contentHeaders[.imageSize]
        headers[.contentLength] = entry.contentHeaders[.contentLength]
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        headers[.imageError] = refusal.message
        decorate(&headers, asked: asked, requestHeaders: request.headers)
        return Response(
            status: refusal.status, headers: headers,
            body: request.method == .head ? .init() : ResponseBody(byteBuffer: entry.body))
    }

    /// `X-Image-Frames` for a thumbnail of fewer frames than its photo: `1 of 30`.
    static func framesHeader(_ thumbnail: Thumbnail) -> String? {
        thumbnail.sourceFrames > thumbnail.frames ? "\(thumbnail.frames) of \(thumbnail.sourceFrames)" : nil
    }

    /// The headers every answer to a request carries besides its own: `Vary` (what it was
    /// chosen by), `Accept-CH` (the Client Hints read), CORS and `Timing-Allow-Origin`
    /// (`--allow-origin`), and a `max-age` no later than the URL's expiry.
    func decorate(_ fields: inout HTTPFields, asked: Asked?, requestHeaders: HTTPFields) {
        var vary = asked?.vary ?? []
        if configuration.clientHints { fields[.acceptCH] = "Sec-CH-DPR, Sec-CH-Width" }
        let origins = configuration.allowedOrigins
        if origins.contains("*") {
            fields[.accessControlAllowOrigin] = "*"
            fields[.timingAllowOrigin] = "*"
        } else if !origins.isEmpty {
            vary.append("Origin")
            if let origin = requestHeaders[.origin], origins.contains(origin) {
                fields[.accessControlAllowOrigin] = origin
                fields[.timingAllowOrigin] = origin
            }
        }
        if !vary.isEmpty { fields[.vary] = vary.joined(separator: ", ") }
        if let expires = asked?.expires, fields[.cacheControl]?.hasPrefix("public") == true {
            let left = max(0, expires - Int(time(nil)))
            fields[.cacheControl] = "public, max-age=\(min(configuration.maxAge, left))"
        }
    }

    /// The response for a refusal: plain text, not cached, `Retry-After` on 503.
    static func response(for refusal: ThumbRequestError) -> Response {
        switch refusal {
        case .overloaded(let seconds): PlainText.response(refusal.status, refusal.message, retryAfter: seconds)
        case .methodNotAllowed: PlainText.response(refusal.status, refusal.message, allow: "GET, HEAD")
        default: PlainText.response(refusal.status, refusal.message)
        }
    }
}
