import Crypto

#if canImport(Glibc)
    import Glibc
#endif

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`) for requests signed in their headers.
///
/// Hand-written because no Swift AWS SDK resolves here (Soto and aws-sdk-swift do not) and
/// the S3 calls cardrender makes need only this: canonical request, string to sign, the
/// derived signing key and the `Authorization` header, on swift-crypto's SHA-256 and HMAC.
/// Checked against AWS's published test suite (`Tests/ObjectStoreTests/SigV4Vectors`) and
/// against a real S3 server that refuses a wrong signature.
public struct SigV4Signer: Sendable {
    /// Who signs.
    public let credentials: AWSCredentials
    /// The region, e.g. `us-east-1`.
    public let region: String
    /// The service, `s3` for object storage.
    public let service: String

    public init(credentials: AWSCredentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The pieces of one signature, kept for tests and for error messages that explain a
    /// refused request (never the secret).
    public struct Signature: Sendable, Equatable {
        /// The canonical request that was hashed.
        public let canonicalRequest: String
        /// The string that was signed.
        public let stringToSign: String
        /// The signature, lowercase hex.
        public let signature: String
        /// The headers to send: the request's own plus `x-amz-date`, `x-amz-content-sha256`
        /// (when given), `x-amz-security-token` (with a session token) and `authorization`.
        public let headers: [(name: String, value: String)]

        public static func == (a: Signature, b: Signature) -> Bool {
            a.canonicalRequest == b.canonicalRequest && a.stringToSign == b.stringToSign
                && a.signature == b.signature
                && a.headers.map { "\($0.name):\($0.value)" } == b.headers.map { "\($0.name):\($0.value)" }
        }
    }

    /// Signs a request.
    /// - Parameters:
    ///   - method: `GET`, `PUT`, ...
    ///   - path: the decoded path, e.g. `/bucket/v1/ab/key` (it is percent-encoded here).
    ///   - query: the decoded query parameters, in any order.
    ///   - headers: the headers to sign (`host` among them), in any order; names in any case.
    ///   - payloadHash: the hex SHA-256 of the body, sent as `x-amz-content-sha256` (S3
    ///     requires it); nil signs the hash of an empty body without sending the header.
    ///   - date: the signing time.
    ///   - normalizePath: remove `.` and `..` segments and repeated slashes first (every
    ///     service but S3, which signs the path as it is).
    public func sign(
        method: String, path: String, query: [(String, String)] = [], headers: [(String, String)],
        payloadHash: String? = nil, date: Date, normalizePath: Bool = false
    ) -> Signature {
        let (stamp, day) = Self.timestamps(date)
        var all = headers.map { (name: $0.0.lowercased(), value: $0.1) }
        all.append((name: "x-amz-date", value: stamp))
        if let payloadHash { all.append((name: "x-amz-content-sha256", value: payloadHash)) }
        if let token = credentials.sessionToken { all.append((name: "x-amz-security-token", value: token)) }
        // Same names joined by commas in their order; values trimmed, inner runs of spaces
        // (and folded lines) made one space.
        var joined: [String: [String]] = [:]
        for header in all { joined[header.name, default: []].append(Self.trimmed(header.value)) }
        let names = joined.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(joined[$0]!.joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let canonicalQuery = query.map { (Self.encoded($0.0, keepSlash: false), Self.encoded($0.1, keepSlash: false)) }
            .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
        let canonicalPath = Self.encoded(normalizePath ? Self.normalized(path) : path, keepSlash: true)
        let canonicalRequest = [
            method, canonicalPath, canonicalQuery, canonicalHeaders, signedHeaders,
            payloadHash ?? Self.emptyPayloadHash,
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", stamp, scope, Self.hex(SHA256.hash(data: Array(canonicalRequest.utf8))),
        ].joined(separator: "\n")
        var key = SymmetricKey(data: Array("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
        return Signature(
            canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature,
            headers: all.map { ($0.name, $0.value) } + [("authorization", authorization)])
    }

    /// The hex SHA-256 of an empty body.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// Lowercase hex of bytes.
    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `yyyyMMdd'T'HHmmss'Z'` and `yyyyMMdd` in UTC.
    static func timestamps(_ date: Date) -> (String, String) {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let day = "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))"
        return ("\(day)T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z", day)
    }

    /// A header value trimmed, with every run of whitespace (folded lines included) one space.
    static func trimmed(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).joined(separator: " ")
    }

    /// RFC 3986 percent-encoding of UTF-8: everything but `A-Z a-z 0-9 - . _ ~` (and `/`
    /// in paths), uppercase hex.
    static func encoded(_ text: String, keepSlash: Bool) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var output = [UInt8]()
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.append(byte)
            case UInt8(ascii: "/") where keepSlash:
                output.append(byte)
            default:
                output += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 15)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The path without `.` and `..` segments and repeated slashes (a trailing slash kept).
    static func normalized(_ path: String) -> String {
        var segments: [Substring] = []
        for segment in path.split(separator: "/") {
            switch segment {
            case ".": continue
            case "..": _ = segments.popLast()
            default: segments.append(segment)
            }
        }
        let trailing = path.hasSuffix("/") && !segments.isEmpty ? "/" : ""
        return "/" + segments.joined(separator: "/") + trailing
    }
}
