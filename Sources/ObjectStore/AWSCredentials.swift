#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// An access key and its secret (and a session token for temporary credentials), read from
/// the standard environment variables. Never printed: `description` shows the key id only.
public struct AWSCredentials: Sendable, Equatable, CustomStringConvertible {
    /// `AWS_ACCESS_KEY_ID`.
    public let accessKeyID: String
    /// `AWS_SECRET_ACCESS_KEY`.
    public let secretAccessKey: String
    /// `AWS_SESSION_TOKEN`, for temporary credentials.
    public let sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// The credentials in `environment` (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
    /// `AWS_SESSION_TOKEN`), or nil when the key id or the secret is missing or empty.
    public init?(environment: [String: String]) {
        guard let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty,
            let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty
        else { return nil }
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        self.init(accessKeyID: id, secretAccessKey: secret, sessionToken: token)
    }

    public var description: String { "access key \(accessKeyID) (secret not shown)" }
}
