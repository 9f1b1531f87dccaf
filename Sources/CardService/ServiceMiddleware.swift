import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import OpenAPIRuntime
import Synchronization

/// The key a `/v1` request was made with: set by `ServiceMiddleware` for the handlers,
/// which the generated code gives no access to the request's headers.
enum RequestOwner {
    @TaskLocal static var id: String?
}

/// In front of every `/v1` route: failed authentication throttled per client address (429),
/// the API key (401), the key's rate (429), the body (413 too large, 400 malformed, 408
/// stalled), the request against the OpenAPI document (`RequestValidator`), and every error
/// as `application/problem+json` (the generated code's own decoding errors included, in
/// words: never a type name).
struct ServiceMiddleware<Context: RemoteAddressRequestContext>: RouterMiddleware {
    let book: OrderBook
    let limiter: RateLimiter
    /// Failed authentications per client address: a burst of `failedAuthBurst`, then one
    /// every `1 / failedAuthRate` seconds; an address over it is refused before its key is
    /// looked at, so that keys cannot be guessed at speed.
    let failures: RateLimiter
    let maxPhotoBytes: Int
    let maxSpecBytes: Int
    /// How long a body may take to arrive.
    let bodyTimeout: Duration
    let validator: RequestValidator
    let metrics: PostcardMetrics
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            // The document and the studio page hold no data: no key needed to read them.
            let path = request.uri.path
            if path == "/v1/openapi.json" || path == "/studio" || path.hasPrefix("/studio/") {
                return try await next(request, context)
            }
            let address = context.remoteAddress?.ipAddress ?? "unknown"
            if let wait = failures.wait(address) {
                metrics.authThrottled()
                var problem = Problem(
                    .tooManyRequests,
                    "Too many requests from this address were sent without a valid API key; retry after \(wait) s.")
                problem.headers[.retryAfter] = String(wait)
                throw problem
            }
            let owner: String
            do {
                owner = try await authenticate(request)
            } catch let problem as Problem where problem.status == .unauthorized {
                metrics.authFailed()
                _ = failures.take(address)
                throw problem
            }
            if let wait = limiter.take(owner) {
                var problem = Problem(
                    .tooManyRequests,
                    "This API key is over its rate of \(Int(limiter.rate)) requests a second; retry after \(wait) s.")
                problem.headers[.retryAfter] = String(wait)
                throw problem
            }
            var request = request
            let body = try await collectBody(of: request)
            request.body = RequestBody(buffer: body)
            try validator.check(request, body: body)
            return try await RequestOwner.$id.withValue(owner) { try await next(request, context) }
        } catch {
            return problem(for: error, request: request).response()
        }
    }

    /// The request's body, within the route's size and `bodyTimeout`.
    /// - Throws: `Problem` 413 (too large), 408 (it stopped arriving), 400 (malformed:
    ///   a broken chunked encoding, or the connection broke).
    private func collectBody(of request: Request) async throws -> ByteBuffer {
        let limit = request.uri.path == "/v1/photos" ? maxPhotoBytes : maxSpecBytes
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw Problem(.contentTooLarge, "The body is \(length) bytes; this route takes \(limit) at most.")
        }
        // Without Content-Length or Transfer-Encoding an HTTP/1.1 request has no body.
        if request.headers[.contentLength] == nil, request.headers[values: .transferEncoding].isEmpty {
            return ByteBuffer()
        }
        let timeout = bodyTimeout
        do {
            return try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
                group.addTask { try await request.body.collect(upTo: limit) }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let body = first else {
                    metrics.bodyRefused("stalled")
                    var problem = Problem(
                        .requestTimeout,
                        "The body did not arrive within \(timeout.components.seconds) s; send it again.")
                    problem.headers[.connection] = "close"
                    throw problem
                }
                return body
            }
        } catch let problem as Problem {
            throw problem
        } catch let error as HTTPError where error.status == .contentTooLarge {
            metrics.bodyRefused("too_large")
            throw Problem(.contentTooLarge, "The body is over \(limit) bytes, the most this route takes.")
        } catch {
            metrics.bodyRefused("malformed")
            var problem = Problem(
                .badRequest, "The body cannot be read: its chunked encoding is malformed, or the connection broke.")
            problem.headers[.connection] = "close"
            throw problem
        }
    }

    private func authenticate(_ request: Request) async throws -> String {
        var refusal = Problem(.unauthorized, "Send an API key as 'Authorization: Bearer KEY' (cardrender keys create).")
        refusal.headers[.wwwAuthenticate] = "Bearer realm=\"cardrender\""
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            throw refusal
        }
        let secret = String(header.dropFirst("bearer ".count)).trimmingSpaces
        // Looked up on every request (an indexed read): a key revoked or rotated on any node
        // is refused by every node at once.
        guard secret.utf8.count <= 200, let owner = try await book.keyID(secret: secret) else {
            var wrong = Problem(.unauthorized, "The API key is not one of this server's, or it was revoked.")
            wrong.headers = refusal.headers
            throw wrong
        }
        return owner
    }

    /// The problem an error is answered with: never a Swift type's name or a decoder's words.
    private func problem(for error: any Error, request: Request) -> Problem {
        switch error {
        case let problem as Problem: return problem
        case let error as ServerError:
            if let problem = error.underlyingError as? Problem { return problem }
            if let decoding = error.underlyingError as? DecodingError {
                return Self.words(decoding)
            }
            if error.httpStatus.code != 500 {
                // The generated code's refusal of a request the validator let through.
                return Problem(
                    error.httpStatus, "The request does not match the API's document (GET /v1/openapi.json).")
            }
            logger.error("\(request.method) \(request.uri.path): \(error)")
            return Problem(.internalServerError, "The server failed on this request; it is logged.")
        case let error as HTTPError:
            return Problem(error.status, error.status.reasonPhrase + ".")
        default:
            logger.error("\(request.method) \(request.uri.path): \(error)")
            return Problem(.internalServerError, "The server failed on this request; it is logged.")
        }
    }

    /// A decoding error in words: the field's path and what it takes.
    static func words(_ error: DecodingError) -> Problem {
        func path(_ keys: [any CodingKey]) -> String {
            keys.reduce("") { path, key in
                if let index = key.intValue { return path + "[\(index)]" }
                return path.isEmpty ? key.stringValue : path + "." + key.stringValue
            }
        }
        let (field, detail): (String, String)
        switch error {
        case .keyNotFound(let key, let context):
            (field, detail) = (path(context.codingPath + [key]), "is required")
        case .valueNotFound(_, let context):
            (field, detail) = (path(context.codingPath), "needs a value, not null")
        case .typeMismatch(_, let context):
            (field, detail) = (path(context.codingPath), "has the wrong type of value")
        case .dataCorrupted(let context):
            (field, detail) = (path(context.codingPath), "cannot be read")
        @unknown default:
            (field, detail) = ("", "cannot be read")
        }
        guard !field.isEmpty else { return Problem(.badRequest, "The request cannot be read.") }
        return Problem(
            .unprocessableContent, "The body is refused: \(field) \(detail).",
            errors: [Problem.FieldError(field: field, detail: detail)])
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        let bytes = Array(utf8)
        guard let first = bytes.firstIndex(where: { $0 != 32 && $0 != 9 }),
            let last = bytes.lastIndex(where: { $0 != 32 && $0 != 9 })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
