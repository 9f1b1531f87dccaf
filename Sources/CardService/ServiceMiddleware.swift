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

/// In front of every `/v1` route: the API key (401), the key's rate (429), the body's size
/// (413), and every error as `application/problem+json` (the generated code's own
/// decoding errors included, which would otherwise be 500s).
struct ServiceMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext

    let book: OrderBook
    let limiter: RateLimiter
    let maxPhotoBytes: Int
    let maxSpecBytes: Int
    let logger: Logger
    /// Secrets' hashes already looked up: a key is never deleted, so a hit stays true.
    let knownKeys = KnownKeys()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        do {
            // The document and the studio page hold no data: no key needed to read them.
            let path = request.uri.path
            if path == "/v1/openapi.json" || path == "/studio" || path.hasPrefix("/studio/") {
                return try await next(request, context)
            }
            let owner = try await authenticate(request)
            if let wait = limiter.take(owner) {
                var problem = Problem(
                    .tooManyRequests,
                    "This API key is over its rate of \(Int(limiter.rate)) requests a second; retry after \(wait) s.")
                problem.headers[.retryAfter] = String(wait)
                throw problem
            }
            var request = request
            let limit = request.uri.path == "/v1/photos" ? maxPhotoBytes : maxSpecBytes
            if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
                throw Problem(.contentTooLarge, "The body is \(length) bytes; this route takes \(limit) at most.")
            }
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: limit)
            } catch {
                throw Problem(.contentTooLarge, "The body is over \(limit) bytes, the most this route takes.")
            }
            request.body = RequestBody(buffer: body)
            return try await RequestOwner.$id.withValue(owner) { try await next(request, context) }
        } catch {
            return problem(for: error, request: request).response()
        }
    }

    private func authenticate(_ request: Request) async throws -> String {
        var refusal = Problem(.unauthorized, "Send an API key as 'Authorization: Bearer KEY' (cardrender keys create).")
        refusal.headers[.wwwAuthenticate] = "Bearer realm=\"cardrender\""
        guard let header = request.headers[.authorization], header.lowercased().hasPrefix("bearer ") else {
            throw refusal
        }
        let secret = String(header.dropFirst("bearer ".count)).trimmingSpaces
        let hash = OrderBook.hash(secret)
        if let owner = knownKeys.owner(of: hash) { return owner }
        guard secret.utf8.count <= 200, let owner = try await book.keyID(secret: secret) else {
            var wrong = refusal
            wrong = Problem(.unauthorized, "The API key is not one of this server's.")
            wrong.headers = refusal.headers
            throw wrong
        }
        knownKeys.remember(owner, for: hash)
        return owner
    }

    /// The problem an error is answered with.
    private func problem(for error: any Error, request: Request) -> Problem {
        switch error {
        case let problem as Problem: return problem
        case let error as ServerError:
            if let problem = error.underlyingError as? Problem { return problem }
            if error.httpStatus.code != 500 {
                return Problem(error.httpStatus, "\(error.causeDescription) (\(error.underlyingError)).")
            }
            if error.underlyingError is DecodingError {
                return Problem(
                    .badRequest, "The body is not what \(error.operationID) takes: \(error.underlyingError).")
            }
            logger.error("\(request.method) \(request.uri.path): \(error)")
            return Problem(.internalServerError, "The server failed on this request; it is logged.")
        case let error as HTTPError:
            return Problem(error.status, error.body ?? error.status.reasonPhrase)
        default:
            logger.error("\(request.method) \(request.uri.path): \(error)")
            return Problem(.internalServerError, "The server failed on this request; it is logged.")
        }
    }
}

/// Key hashes already found, and their key ids.
final class KnownKeys: Sendable {
    private let keys = Mutex([String: String]())

    func owner(of hash: String) -> String? { keys.withLock { $0[hash] } }

    func remember(_ owner: String, for hash: String) {
        keys.withLock { keys in
            // Bounded: an attacker cannot grow it (only real keys are remembered).
            if keys.count > 10_000 { keys.removeAll() }
            keys[hash] = owner
        }
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
