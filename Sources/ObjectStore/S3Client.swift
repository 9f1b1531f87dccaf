import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// The few S3 calls cardrender makes (PutObject, GetObject, HeadObject, ListObjectsV2,
/// DeleteObject, CreateBucket) on AsyncHTTPClient, signed with SigV4, path-style
/// (`ENDPOINT/BUCKET/KEY`, what S3-compatible servers all accept), with timeouts and
/// retries with backoff for what may pass (no answer, 5xx, 429).
///
/// Hand-written because no Swift S3 SDK resolves on these machines (Soto and aws-sdk-swift
/// do not); tested against a real S3 server (SeaweedFS) that checks every signature.
public struct S3Client: Sendable {
    /// `http://host:port` or `https://host`, without a trailing slash.
    public let endpoint: String
    /// Signs every request.
    public let signer: SigV4Signer
    /// Time allowed for one request.
    public var timeout: TimeAmount = .seconds(30)
    /// Tries per request for transient failures (1 = no retry).
    public var attempts = 4
    /// The first wait between tries; doubled each time, with jitter.
    public var backoff: Duration = .milliseconds(100)
    private let http: HTTPClient

    /// - Parameters:
    ///   - endpoint: the store's base URL, e.g. `http://127.0.0.1:8333` (`AWS_ENDPOINT_URL`).
    ///   - http: the client to send with (default: the process-wide shared one).
    public init(endpoint: String, signer: SigV4Signer, http: HTTPClient = .shared) {
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        self.signer = signer
        self.http = http
    }

    /// What `head` learns about an object without reading it.
    public struct ObjectInfo: Sendable, Equatable {
        /// Bytes.
        public var size: Int
        /// The store's entity tag (changes when the object does).
        public var etag: String
        /// `Last-Modified` in seconds since 1970 (0 when the store sent none).
        public var modified: Int
        /// The SHA-256 of the bytes as lower-case hex, when the object was stored with one
        /// (`x-amz-checksum-sha256`, not a multipart composite).
        public var sha256: String?
    }

    /// An answer: status, headers, body.
    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
    }

    /// Creates `bucket`; an existing bucket of ours is no error.
    public func createBucket(_ bucket: String) async throws(S3Error) {
        let answer = try await send("CreateBucket", bucket, method: .PUT, bucket: bucket, key: nil)
        guard (200..<300).contains(answer.status) || Self.code(answer.body) == "BucketAlreadyOwnedByYou" else {
            throw Self.refusal("CreateBucket", bucket, answer)
        }
    }

    /// Stores `body` under `key` unless an object is there already (`If-None-Match: *`),
    /// with its SHA-256 for the store to check and keep (`x-amz-checksum-sha256`).
    /// - Parameter checksum: false stores the object as clients that send no checksum do.
    /// - Returns: true when stored, false when another writer stored the key first (412).
    public func putIfAbsent(bucket: String, key: String, body: [UInt8], checksum: Bool = true) async throws(S3Error)
        -> Bool
    {
        let digest = Array(SHA256.hash(data: body))
        var headers = [("if-none-match", "*"), ("content-type", "application/octet-stream")]
        if checksum { headers.append(("x-amz-checksum-sha256", Data(digest).base64EncodedString())) }
        let answer = try await send(
            "PutObject", "\(bucket)/\(key)", method: .PUT, bucket: bucket, key: key, body: body,
            headers: headers, payloadHash: SigV4Signer.hex(digest))
        switch answer.status {
        case 200..<300: return true
        case 412, 409: return false  // precondition failed: someone else's object is there
        default: throw Self.refusal("PutObject", "\(bucket)/\(key)", answer)
        }
    }

    /// The object's bytes, or nil when there is none (404).
    public func get(bucket: String, key: String) async throws(S3Error) -> [UInt8]? {
        let answer = try await send("GetObject", "\(bucket)/\(key)", method: .GET, bucket: bucket, key: key)
        switch answer.status {
        case 200: return answer.body
        case 404: return nil
        default: throw Self.refusal("GetObject", "\(bucket)/\(key)", answer)
        }
    }

    /// The object's size, tag, time and SHA-256 (asked for with `x-amz-checksum-mode`),
    /// or nil when there is none.
    public func head(bucket: String, key: String) async throws(S3Error) -> ObjectInfo? {
        let answer = try await send(
            "HeadObject", "\(bucket)/\(key)", method: .HEAD, bucket: bucket, key: key,
            headers: [("x-amz-checksum-mode", "ENABLED")])
        switch answer.status {
        case 200:
            let headers = answer.headers
            let checksum = headers.first(name: "x-amz-checksum-sha256").flatMap { Data(base64Encoded: $0) }
            return ObjectInfo(
                size: headers.first(name: "content-length").flatMap { Int($0) } ?? 0,
                etag: headers.first(name: "etag") ?? "",
                modified: headers.first(name: "last-modified").flatMap(Self.httpDate) ?? 0,
                sha256: checksum.flatMap { $0.count == 32 ? SigV4Signer.hex(Array($0)) : nil })
        case 404: return nil
        default: throw Self.refusal("HeadObject", "\(bucket)/\(key)", answer)
        }
    }

    /// Removes the object; a missing one is no error.
    public func delete(bucket: String, key: String) async throws(S3Error) {
        let answer = try await send("DeleteObject", "\(bucket)/\(key)", method: .DELETE, bucket: bucket, key: key)
        guard (200..<300).contains(answer.status) || answer.status == 404 else {
            throw Self.refusal("DeleteObject", "\(bucket)/\(key)", answer)
        }
    }

    /// Every object under `prefix`, with its size (all pages).
    public func list(bucket: String, prefix: String) async throws(S3Error) -> [(key: String, size: Int)] {
        var objects: [(key: String, size: Int)] = []
        var token: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix)]
            if let token { query.append(("continuation-token", token)) }
            let answer = try await send(
                "ListObjectsV2", "\(bucket)/\(prefix)", method: .GET, bucket: bucket, key: nil, query: query)
            guard answer.status == 200 else { throw Self.refusal("ListObjectsV2", "\(bucket)/\(prefix)", answer) }
            let text = String(decoding: answer.body, as: UTF8.self)
            for entry in Self.elements("Contents", in: text) {
                guard let key = Self.elements("Key", in: entry).first else { continue }
                objects.append((Self.unescaped(key), Int(Self.elements("Size", in: entry).first ?? "") ?? 0))
            }
            token =
                Self.elements("IsTruncated", in: text).first == "true"
                ? Self.elements("NextContinuationToken", in: text).first.map(Self.unescaped) : nil
        } while token != nil
        return objects
    }

    /// Seconds since 1970 of an HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`).
    static func httpDate(_ text: String) -> Int? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text).map { Int($0.timeIntervalSince1970) }
    }

    /// Runs `operation` on Swift's concurrency pool and blocks this thread until it ends:
    /// for callers on worker threads (never on the pool itself, which it could starve).
    /// (The client throws only `S3Error`; anything else is reported as no answer.)
    public static func blocking<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) -> Result<
        T, S3Error
    > {
        let result = Mutex<Result<T, S3Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<T, S3Error>
            do {
                outcome = .success(try await operation())
            } catch {
                outcome = .failure(
                    error as? S3Error ?? .unreachable(operation: "request", object: "", detail: "\(error)"))
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 }!
    }

    /// Sends one signed request, retrying transient failures with backoff.
    private func send(
        _ operation: String, _ object: String, method: HTTPMethod, bucket: String, key: String?,
        query: [(String, String)] = [], body: [UInt8] = [], headers: [(String, String)] = [],
        payloadHash: String? = nil
    ) async throws(S3Error) -> Answer {
        let path = "/" + bucket + (key.map { "/" + $0 } ?? "")
        let host =
            endpoint.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map(String.init) ?? ""
        let bodyHash = payloadHash ?? SigV4Signer.hex(SHA256.hash(data: body))
        var failure = S3Error.unreachable(operation: operation, object: object, detail: "not sent")
        for attempt in 0..<max(1, attempts) {
            if attempt > 0 {
                let wait = backoff * (1 << (attempt - 1))
                try? await Task.sleep(for: wait + wait * Double.random(in: 0..<0.5))
            }
            let signature = signer.sign(
                method: method.rawValue, path: path, query: query, headers: [("host", host)] + headers,
                payloadHash: bodyHash, date: Date())
            let queryText = query.map {
                SigV4Signer.encoded($0.0, keepSlash: false) + "=" + SigV4Signer.encoded($0.1, keepSlash: false)
            }.joined(separator: "&")
            var request = HTTPClientRequest(
                url: endpoint + SigV4Signer.encoded(path, keepSlash: true) + (queryText.isEmpty ? "" : "?" + queryText))
            request.method = method
            for (name, value) in signature.headers where name != "host" {
                request.headers.add(name: name, value: value)
            }
            if !body.isEmpty || method == .PUT { request.body = .bytes(ByteBuffer(bytes: body)) }
            do {
                let response = try await http.execute(request, timeout: timeout)
                var collected = try await response.body.collect(upTo: 256 << 20)
                let answer = Answer(
                    status: Int(response.status.code), headers: response.headers,
                    body: collected.readBytes(length: collected.readableBytes) ?? [])
                let refusal = Self.refusal(operation, object, answer)
                if answer.status >= 500 || answer.status == 429 {
                    failure = refusal
                    continue
                }
                return answer
            } catch {
                failure = .unreachable(operation: operation, object: object, detail: "\(error)")
            }
        }
        throw failure
    }

    /// The refusal an error answer means.
    static func refusal(_ operation: String, _ object: String, _ answer: Answer) -> S3Error {
        let text = String(decoding: answer.body, as: UTF8.self)
        return .refused(
            operation: operation, object: object, status: answer.status, code: code(answer.body) ?? "",
            message: elements("Message", in: text).first.map(unescaped) ?? "")
    }

    /// S3's error code in an error body.
    static func code(_ body: [UInt8]) -> String? {
        elements("Code", in: String(decoding: body, as: UTF8.self)).first
    }

    /// The contents of every `<name>...</name>` in `text` (S3's flat XML answers).
    static func elements(_ name: String, in text: String) -> [String] {
        var found: [String] = []
        var rest = text[...]
        while let open = rest.range(of: "<\(name)>"), let close = rest[open.upperBound...].range(of: "</\(name)>") {
            found.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return found
    }

    /// XML's five entities decoded.
    static func unescaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
