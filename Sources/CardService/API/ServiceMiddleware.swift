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

/// In front of every `/v1` route: the API key (401; failed authentication slowed per client
/// address, 429, never refusing a valid key), the key's rate (429), uploads taking turns
/// between keys (`FairPermits`, 503 when none comes), the body (`BodyCollector`: 413 too
/// large, 400 malformed, 408 stalled or too slow; a form's file part taken out of it), the
/// request against the OpenAPI document (`RequestValidator`), and every error as
/// `application/problem+json` (the generated code's own decoding errors included, in words:
/// never a type name). A refusal sent before the body was read closes the connection, which
/// the server's shell does lingering (the client reads the answer).
struct ServiceMiddleware<Context: RemoteAddressRequestContext>: RouterMiddleware {
    let book: OrderBook
    let limits: APILimits
    let limiter: RateLimiter
    /// Failed authentications per client address: a burst of `failedAuthentications.burst`,
    /// then one every `1 / perSecond` seconds; an address over it has its requests without a
    /// valid key refused with 429 (a valid key is always served: a guess at a 128-bit key
    /// costs nothing to refuse).
    let failures: RateLimiter
    let maxPhotoBytes: Int
    let maxSpecBytes: Int
    let validator: RequestValidator
    let metrics: PostcardMetrics
    let logger: Logger
    /// Uploads and scans, whose bodies are held while they are read and checked: a few at a
    /// time, shared between keys.
    let uploads: FairPermits
    /// Every other body (JSON, 1 MiB at most) while it is read: 128 at a time, 32 of one key.
    let bodies: FairPermits
    /// The keys in use, for an address over its failed-authentication rate.
    let knownKeys: KnownKeys

    init(
        book: OrderBook, limits: APILimits, maxPhotoBytes: Int, maxSpecBytes: Int, uploadPermits: Int,
        metrics: PostcardMetrics, logger: Logger
    ) {
        self.book = book
        self.limits = limits
        limiter = RateLimiter(rate: limits.requestsPerSecond, burst: 2 * limits.requestsPerSecond)
        let (burst, perSecond) = limits.failedAuthentications
        failures = RateLimiter(
            rate: perSecond, burst: burst,
            maxDebt: max(0, Double(limits.failedAuthenticationMaxWait) * perSecond - 1))
        self.maxPhotoBytes = maxPhotoBytes
        self.maxSpecBytes = maxSpecBytes
        validator = RequestValidator()
        self.metrics = metrics
        self.logger = logger
        uploads = FairPermits(uploadPermits, maxWait: limits.uploadWait)
        bodies = FairPermits(128, perOwner: 32, maxWait: limits.uploadWait)
        knownKeys = KnownKeys(book: book)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let bodyRead = Flag()
        do {
            // The document holds no data: no key needed to read it.
            if request.uri.path == PostcardRoutes.documentPath { return try await next(request, context) }
            let owner = try await authenticate(request, from: context.remoteAddress)
            if let wait = limiter.take(owner) {
                throw Problem.retryLater(
                    "This API key is over its rate of \(Int(limiter.rate)) requests a second; retry after \(wait) s.",
                    after: wait)
            }
            let operation = try validator.operation(of: request)
            // A photo's body (an upload, a scan) is held until it is stored or read: a few at a
            // time, taking turns between keys, so that many at once wait rather than hold their
            // bodies in memory together, and no key holds them all.
            let isUpload = operation?.operation.bodyTypes.contains { $0.hasPrefix("image/") } == true
            let form = try isUpload ? Self.form(request) : nil
            func work() async throws -> Response {
                let collector = BodyCollector(limits: limits, metrics: metrics)
                let limit = isUpload ? maxPhotoBytes : maxSpecBytes
                // An upload holds its slot to the end; any other body a slot of its own while it
                // is read (the work after it is the service's to share).
                let body =
                    isUpload || !Self.hasBody(request)
                    ? try await collector.collect(request, limit: limit, form: form)
                    : try await bodies.run(owner: owner) {
                        try await collector.collect(request, limit: limit, form: form)
                    }
                bodyRead.set()
                var request = request
                request.body = RequestBody(buffer: body.payload)
                if form != nil {
                    // The generated code never reads a form: the file part goes on as the bytes.
                    var head = request.head
                    head.headerFields[.contentType] = "application/octet-stream"
                    request = Request(head: head, body: RequestBody(buffer: body.payload))
                }
                if let operation { try validator.check(request, body: body.payload, against: operation) }
                return try await RequestOwner.$id.withValue(owner) { try await next(request, context) }
            }
            do {
                guard isUpload else { return try await work() }
                return try await uploads.run(owner: owner) { try await work() }
            } catch let busy as FairPermits.Busy {
                metrics.uploadsBusy()
                throw Problem.retryLater(
                    "No \(isUpload ? "upload" : "request body") slot came free in time (this key's share is in use, or other keys hold the rest); retry after \(busy.retryAfter) s.",
                    after: busy.retryAfter, status: .serviceUnavailable)
            }
        } catch {
            var problem = problem(for: error, request: request)
            // Answered before its body was read: the connection closes after the answer (the
            // shell drains a bounded part of the body first, so the client reads it).
            if !bodyRead.isSet, Self.hasBody(request) { problem.headers[.connection] = "close" }
            return problem.response()
        }
    }

    /// A reader for an upload sent as `multipart/form-data`, or nil for one sent as the bytes.
    /// - Throws: `Problem` 400 for a form without a usable boundary.
    static func form(_ request: Request) throws -> MultipartFormReader? {
        guard let type = request.headers[.contentType],
            RequestValidator.mediaType(type) == "multipart/form-data"
        else { return nil }
        do {
            return try MultipartFormReader(contentType: type)
        } catch {
            throw BodyCollector.formRefusal(error)
        }
    }

    /// Whether the request says it carries a body.
    static func hasBody(_ request: Request) -> Bool {
        !request.headers[values: .transferEncoding].isEmpty
            || request.headers[.contentLength].flatMap(Int.init).map { $0 > 0 } == true
    }

    /// The key the request was made with.
    ///
    /// A request from an address over its failed-authentication rate is looked up only when
    /// its secret may be a key (`KnownKeys`, read at most once a second), and a secret not
    /// shaped like a key never is: a client sending wrong keys in a loop costs the database
    /// nothing, and a valid key is served as always.
    /// - Throws: `Problem` 401 for no key or a wrong one; 429 for a wrong one from an address
    ///   whose failures are over its rate.
    private func authenticate(_ request: Request, from peer: SocketAddress?) async throws -> String {
        let address = ClientAddress.key(
            peer: peer, forwardedFor: request.headers[values: .xForwardedFor], trusted: limits.trustedProxies)
        // The burst's failures are answered 401; past it, 429 (each one charged all the same,
        // into a debt that is capped).
        let over = failures.wait(address) != nil
        func refused(_ problem: Problem) -> Problem {
            metrics.authFailed()
            failures.charge(address)
            guard over, let wait = failures.wait(address) else { return problem }
            metrics.authThrottled()
            return Problem.retryLater(
                "Too many requests from this address were sent without a valid API key; retry after \(wait) s (a valid key is always served).",
                after: wait)
        }
        var refusal = Problem(.unauthorized, "Send an API key as 'Authorization: Bearer KEY' (cardrender keys create).")
        refusal.headers[.wwwAuthenticate] = "Bearer realm=\"cardrender\""
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            throw refused(refusal)
        }
        let secret = String(header.dropFirst("bearer ".count)).trimmed(of: " \t")
        var wrong = Problem(.unauthorized, "The API key is not one of this server's, or it was revoked.")
        wrong.headers = refusal.headers
        guard OrderBook.isKeyShaped(secret) else { throw refused(wrong) }
        if over, !(await knownKeys.mayBeKey(secret)) { throw refused(wrong) }
        // Looked up on every request (an indexed read): a key revoked or rotated on any node
        // is refused by every node at once.
        guard let owner = try await book.keyID(secret: secret) else { throw refused(wrong) }
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

/// Whether a request's body was read (set once, from the task that reads it).
private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}

extension HTTPField.Name {
    /// `X-Forwarded-For`: the addresses a request came through, as proxies append them.
    static let xForwardedFor = Self("X-Forwarded-For")!
}
