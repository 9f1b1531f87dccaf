/// A refused or failed S3 request, naming the operation, the object and the cause (never a
/// credential).
public enum S3Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store answered with an error status: S3's error code and message when it sent them.
    case refused(operation: String, object: String, status: Int, code: String, message: String)
    /// No answer: connection refused, reset, timed out (after the retries).
    case unreachable(operation: String, object: String, detail: String)

    /// Whether this is the kind of failure a later retry of the whole job may get past
    /// (the store down, overloaded or timing out), as opposed to a refusal that will repeat.
    public var isTransient: Bool {
        switch self {
        case .unreachable: true
        case .refused(_, _, let status, _, _): status >= 500 || status == 429
        }
    }

    /// Whether the store refused the credentials (unknown key id or wrong secret).
    public var isCredentialError: Bool {
        if case .refused(_, _, _, let code, _) = self {
            return ["SignatureDoesNotMatch", "InvalidAccessKeyId", "AccessDenied"].contains(code)
        }
        return false
    }

    public var description: String {
        switch self {
        case .refused(let operation, let object, let status, let code, let message):
            let detail = [code, message].filter { !$0.isEmpty }.joined(separator: ": ")
            let hint =
                isCredentialError
                ? " (check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY for this store)" : ""
            return "S3 \(operation) \(object): HTTP \(status)\(detail.isEmpty ? "" : " " + detail)\(hint)"
        case .unreachable(let operation, let object, let detail):
            return "S3 \(operation) \(object): no answer from the store (\(detail))"
        }
    }
}
