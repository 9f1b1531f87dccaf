// `sockaddr_in6`'s fields are owned by NIO's CNIOLinux module once NIO is loaded (the two share
// the header), so MemberImportVisibility asks for it by name.
import CNIOLinux
import Glibc
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
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
    /// Uploads whose bodies are read and checked at once; the others wait their turn.
    let uploads: AsyncPermits
    /// Everything else.
    let unbounded = AsyncPermits(Int.max)

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            // The document holds no data: no key needed to read it.
            if request.uri.path == PostcardRoutes.documentPath { return try await next(request, context) }
            let address = Self.client(context.remoteAddress)
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
                failures.charge(address)
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
            let operation = try validator.operation(of: request)
            // A photo's body (an upload, a scan) is held until it is stored or read: a few at a
            // time, so that many at once wait rather than hold their bodies in memory together.
            let isUpload = operation?.operation.bodyTypes.contains { $0.hasPrefix("image/") } == true
            return try await (isUpload ? uploads : unbounded).run {
                let body = try await collectBody(of: request, limit: isUpload ? maxPhotoBytes : maxSpecBytes)
                request.body = RequestBody(buffer: body)
                if let operation { try validator.check(request, body: body, against: operation) }
                return try await RequestOwner.$id.withValue(owner) { try await next(request, context) }
            }
        } catch {
            return problem(for: error, request: request).response()
        }
    }

    /// The request's body, within the route's size, each part arriving within `bodyTimeout`
    /// of the one before (a body that keeps coming, however slowly, is read).
    /// - Throws: `Problem` 413 (too large), 408 (it stopped arriving), 400 (malformed: a
    ///   broken chunked encoding; or the connection broke).
    private func collectBody(of request: Request, limit: Int) async throws -> ByteBuffer {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            metrics.bodyRefused("too_large")
            var problem = Problem(.contentTooLarge, "The body is \(length) bytes; this route takes \(limit) at most.")
            problem.headers[.connection] = "close"
            throw problem
        }
        // Without Content-Length or Transfer-Encoding an HTTP/1.1 request has no body.
        if request.headers[.contentLength] == nil, request.headers[values: .transferEncoding].isEmpty {
            return ByteBuffer()
        }
        let timeout = bodyTimeout
        let started = ContinuousClock.now
        let arrived = LastArrival()
        do {
            return try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
                group.addTask {
                    var body = ByteBuffer()
                    for try await part in request.body {
                        guard body.readableBytes + part.readableBytes <= limit else {
                            throw Problem(
                                .contentTooLarge, "The body is over \(limit) bytes, the most this route takes.")
                        }
                        body.writeImmutableBuffer(part)
                        let (seconds, attoseconds) = (ContinuousClock.now - started).components
                        arrived.nanoseconds.store(
                            seconds * 1_000_000_000 + attoseconds / 1_000_000_000, ordering: .relaxed)
                    }
                    return body
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: timeout / 4)
                        let last = Duration.nanoseconds(arrived.nanoseconds.load(ordering: .relaxed))
                        if ContinuousClock.now - started - last > timeout { return nil }
                    }
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let body = first else {
                    metrics.bodyRefused("stalled")
                    var problem = Problem(
                        .requestTimeout,
                        "Nothing more of the body arrived for \(timeout.components.seconds) s; send it again.")
                    problem.headers[.connection] = "close"
                    throw problem
                }
                return body
            }
        } catch var problem as Problem {
            if problem.status == .contentTooLarge {
                metrics.bodyRefused("too_large")
                problem.headers[.connection] = "close"
            }
            throw problem
        } catch is HTTPParserError {
            metrics.bodyRefused("malformed")
            var problem = Problem(.badRequest, "The body cannot be read: its chunked encoding is malformed.")
            problem.headers[.connection] = "close"
            throw problem
        } catch {
            // The connection closed (or the server is stopping) before the body was whole.
            metrics.bodyRefused("disconnected")
            var problem = Problem(.badRequest, "The body ended before it was whole (the connection closed).")
            problem.headers[.connection] = "close"
            throw problem
        }
    }

    /// The client a failed authentication is charged to: its IPv4 address, or its IPv6
    /// address's /64 (one host has a whole /64 to draw addresses from).
    static func client(_ address: SocketAddress?) -> String {
        guard let address else { return "unknown" }
        if case .v6(let v6) = address {
            let prefix = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0.prefix(8)) }
            // An IPv4 address mapped into IPv6 (::ffff:a.b.c.d) is that IPv4 address.
            if prefix != [0, 0, 0, 0, 0, 0, 0, 0] {
                return prefix.map { String($0, radix: 16) }.joined(separator: ".") + "/64"
            }
        }
        return address.ipAddress ?? "unknown"
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
            // The operation and the cause alone: a `ServerError`'s own text holds the request's
            // headers (the key) and its query.
            logger.error("\(request.method) \(request.uri.path) (\(error.operationID)): \(error.underlyingError)")
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

/// When a body's last part arrived: nanoseconds from the start of its reading.
private final class LastArrival: Sendable {
    let nanoseconds = Atomic<Int64>(0)
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
