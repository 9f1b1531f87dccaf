import HTTPTypes
import Hummingbird
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An error answered as `application/problem+json` (RFC 9457): a status, a title, a
/// sentence that names the parameter or field and the cause, and for a spec the errors
/// with their field paths.
public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: HTTPResponse.Status
    public let detail: String
    /// The spec's errors: field path and what is wrong there.
    public var errors: [FieldError] = []
    /// Extra headers (`Retry-After`, `WWW-Authenticate`, `Allow`).
    public var headers: HTTPFields = [:]

    /// One field's error.
    public struct FieldError: Sendable, Equatable, Codable {
        public let field: String
        public let detail: String
    }

    public init(_ status: HTTPResponse.Status, _ detail: String, errors: [FieldError] = []) {
        self.status = status
        self.detail = detail
        self.errors = errors
    }

    public var description: String { "\(status.code) \(status.reasonPhrase): \(detail)" }

    /// The response.
    func response() -> Response {
        struct Body: Encodable {
            let type: String
            let title: String
            let status: Int
            let detail: String
            let errors: [FieldError]?
        }
        let body = Body(
            type: "about:blank", title: status.reasonPhrase, status: status.code, detail: detail,
            errors: errors.isEmpty ? nil : errors)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(body)) ?? Data()
        var fields = headers
        fields[.contentType] = "application/problem+json"
        fields[.cacheControl] = "no-store"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `status` (429 by default, or 503) with `Retry-After: seconds`: come back later.
    static func retryLater(_ detail: String, after seconds: Int, status: HTTPResponse.Status = .tooManyRequests)
        -> Problem
    {
        var problem = Problem(status, detail)
        problem.headers[.retryAfter] = String(seconds)
        return problem
    }

    /// 404 for `what` (another key's id is not found either: ids are not disclosed).
    static func notFound(_ what: String) -> Problem { Problem(.notFound, "\(what) was not found.") }
}
