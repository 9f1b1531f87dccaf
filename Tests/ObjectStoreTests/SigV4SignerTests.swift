import Crypto
import Foundation
import Testing

@testable import ObjectStore

/// The signer against every header-signing case of AWS's SigV4 test suite (copied from
/// awslabs/aws-c-auth, see `SigV4Vectors/README.md`): the canonical request, the string to
/// sign and the signature must each be byte for byte the published ones.
struct SigV4SignerTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("SigV4Vectors")

    /// Cases that need what S3 signing never uses: a session token left out of the
    /// signature (`omit_session_token`, for STS-style callers).
    static let notApplicable: Set<String> = ["post-sts-header-after"]

    static let cases: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasSuffix(".md") && !notApplicable.contains($0) }.sorted()
    }()

    struct Context: Decodable {
        struct Credentials: Decodable {
            var access_key_id: String
            var secret_access_key: String
            var token: String?
        }
        var credentials: Credentials
        var normalize: Bool
        var region: String
        var service: String
        var sign_body: Bool
        var timestamp: String
    }

    /// A request of the suite: `METHOD PATH?QUERY HTTP/1.1`, headers (folded lines continue
    /// the previous value), a blank line, the body.
    struct Request {
        var method = ""
        var path = ""
        var query: [(String, String)] = []
        var headers: [(String, String)] = []
        var body = ""

        init(_ text: String) {
            let (head, body) =
                text.range(of: "\n\n").map { (String(text[..<$0.lowerBound]), String(text[$0.upperBound...])) }
                ?? (text, "")
            self.body = body
            var lines = head.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let first = lines.removeFirst().split(separator: " ")
            method = String(first[0])
            let target = first[1..<(first.count - 1)].joined(separator: " ")
            let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            path = String(parts[0])
            if parts.count > 1 {
                query = parts[1].split(separator: "&").map { pair in
                    let field = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    return (
                        String(field[0]).removingPercentEncoding!,
                        field.count > 1 ? String(field[1]).removingPercentEncoding! : ""
                    )
                }
            }
            for line in lines where !line.isEmpty {
                if line.first == " " || line.first == "\t" {
                    headers[headers.count - 1].1 += " " + line
                } else if let colon = line.firstIndex(of: ":") {
                    headers.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
                }
            }
        }
    }

    func text(_ name: String, _ file: String) throws -> String {
        try String(
            contentsOf: Self.directory.appendingPathComponent(name).appendingPathComponent(file), encoding: .utf8)
    }

    @Test func theSuiteIsThere() {
        #expect(Self.cases.count >= 37, "the vectors are missing: \(Self.directory.path)")
    }

    @Test(arguments: cases)
    func matchesTheSuite(_ name: String) throws {
        let context = try JSONDecoder().decode(Context.self, from: Data(try text(name, "context.json").utf8))
        let request = Request(try text(name, "request.txt"))
        let signer = SigV4Signer(
            credentials: AWSCredentials(
                accessKeyID: context.credentials.access_key_id, secretAccessKey: context.credentials.secret_access_key,
                sessionToken: context.credentials.token),
            region: context.region, service: context.service)
        let date = try Date(context.timestamp, strategy: .iso8601)
        let payloadHash = context.sign_body ? SigV4Signer.hex(SHA256Hex.of(request.body)) : nil
        let signature = signer.sign(
            method: request.method, path: request.path, query: request.query, headers: request.headers,
            payloadHash: payloadHash, date: date, normalizePath: context.normalize)
        #expect(signature.canonicalRequest == (try text(name, "header-canonical-request.txt")))
        #expect(signature.stringToSign == (try text(name, "header-string-to-sign.txt")))
        #expect(signature.signature == (try text(name, "header-signature.txt")))
    }

    /// A wrong secret, another day or another region give another signature (so the suite
    /// checks something), and the credentials never print their secret.
    @Test func everyInputCountsAndTheSecretNeverPrints() throws {
        let credentials = AWSCredentials(accessKeyID: "AKID", secretAccessKey: "s3cr3t-value")
        let date = Date(timeIntervalSince1970: 1_440_938_160)
        func signature(_ signer: SigV4Signer, _ date: Date) -> String {
            signer.sign(method: "GET", path: "/b/k", headers: [("Host", "h")], date: date).signature
        }
        let base = signature(SigV4Signer(credentials: credentials, region: "us-east-1"), date)
        let others = [
            signature(
                SigV4Signer(
                    credentials: AWSCredentials(accessKeyID: "AKID", secretAccessKey: "other"), region: "us-east-1"),
                date),
            signature(SigV4Signer(credentials: credentials, region: "eu-west-1"), date),
            signature(SigV4Signer(credentials: credentials, region: "us-east-1"), date.addingTimeInterval(86_400)),
        ]
        #expect(Set(others + [base]).count == 4)
        #expect(!"\(credentials)".contains("s3cr3t") && "\(credentials)".contains("AKID"))
        #expect(AWSCredentials(environment: ["AWS_ACCESS_KEY_ID": "a"]) == nil)
        #expect(
            AWSCredentials(environment: [
                "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b", "AWS_SESSION_TOKEN": "",
            ])
                == AWSCredentials(accessKeyID: "a", secretAccessKey: "b"))
    }
}

/// The SHA-256 of a string's UTF-8 bytes, for the suite's signed bodies.
enum SHA256Hex {
    static func of(_ text: String) -> [UInt8] {
        Array(Crypto.SHA256.hash(data: Array(text.utf8)))
    }
}
