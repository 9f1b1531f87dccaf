import CardKit
import CardPipeline
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import RenderCache
import VipsKit

/// Serves `/thumb/<path>?width=N…`: checks the signature, the parameters and the path, then
/// answers from memory, from the disk cache, or by rendering once on the worker pool while
/// identical requests wait for that one render. Never throws: every failure becomes a
/// response through `ThumbRequestError`.
public final class ThumbService: Sendable {
    /// The settings it was made with.
    public let configuration: ServerConfiguration
    /// The metrics it counts into.
    public let metrics: ServerMetrics
    /// The worker threads.
    public let pool: WorkPool
    /// The cache.
    public let cache: LocalCache
    let source: Source
    let signer: URLSigner?
    let thumbnailer: CachedThumbnailer
    let memory: MemoryCache
    let flights = SingleFlight<Produced>()
    let digests = ObjectDigestMemo()
    let logger: Logger

    /// The route prefix.
    static let prefix = "/thumb/"

    /// Where the photos are: a directory, or a bucket (`s3://BUCKET/PREFIX`).
    enum Source: Sendable {
        case directory(RootDirectory)
        case bucket(BucketRoot)
    }

    /// The photo a request names, wherever it is.
    struct Photo: Sendable {
        /// Changes whenever the photo does (path and stamp, or key and entity tag).
        let identity: String
        /// Modification time, seconds since 1970 (`Last-Modified`).
        let modified: Int
        let origin: Origin

        enum Origin: Sendable {
            case file(RootDirectory.File)
            case object(BucketRoot.Object, BucketRoot)
        }
    }

    /// A thumbnail ready to send and how it was obtained.
    struct Produced: Sendable {
        let entry: MemoryCache.Entry
        let source: ServerMetrics.Source
    }

    /// Opens the root and starts the workers.
    /// - Throws: `RootDirectoryError` for a root that cannot be served.
    public init(configuration: ServerConfiguration, cache: LocalCache, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        if configuration.root.hasPrefix("s3://") {
            let path = configuration.root.dropFirst("s3://".count).split(separator: "/", maxSplits: 1)
            guard let client = configuration.bucketClient, let bucket = path.first else {
                throw RootDirectoryError(
                    directory: configuration.root,
                    reason: "an s3://BUCKET/PREFIX root needs the store's endpoint and credentials (AWS_* variables)")
            }
            source = .bucket(
                BucketRoot(client: client, bucket: String(bucket), prefix: path.count > 1 ? String(path[1]) : ""))
        } else {
            source = .directory(try RootDirectory(configuration.root))
        }
        signer = configuration.signingKey.map(URLSigner.init)
        self.cache = cache
        thumbnailer = CachedThumbnailer(
            thumbnailer: Thumbnailer(
                maxWidth: configuration.maxWidth, policy: configuration.policy, engine: configuration.engine),
            cache: cache)
        memory = MemoryCache(capacity: configuration.memoryCacheBytes)
        metrics = ServerMetrics()
        pool = WorkPool(workers: configuration.workers, queueLimit: configuration.queueLimit)
    }

    /// The response to a `/thumb/…` request: the thumbnail, a 304, or the refusal's status and text.
    func respond(to request: Request) async -> Response {
        do {
            return try await thumbnail(for: request)
        } catch {
            let refusal = ThumbRequestError.from(error, retryAfter: configuration.retryAfter)
            if refusal == .internalError {
                logger.error("thumbnail failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            } else if case .unprocessable = refusal, let error = error as? ImageInputError {
                logger.notice("image refused", metadata: ["error": "\(error)"])
            }
            return Self.response(for: refusal)
        }
    }

    private func thumbnail(for request: Request) async throws -> Response {
        guard request.method == .get || request.method == .head else { throw ThumbRequestError.methodNotAllowed }
        let path = request.uri.path
        var query = Substring(request.uri.query ?? "")
        if let signer { query = try signer.verify(path: path[...], query: query) }
        let parameters = try ThumbParameters.parse(query: query, maxWidth: configuration.maxWidth)
        let photo = try await locate(path.dropFirst(Self.prefix.count))
        let format =
            switch parameters.format {
            case .fixed(let format): format
            case .auto: FormatNegotiation.choose(accept: request.headers[.accept])
            }
        let options = EncodeOptions(format: format, quality: parameters.quality)
        let identity = "\(photo.identity)\n\(parameters.width)\n\(format.rawValue)\n\(options.quality)"

        let produced: Produced
        if let entry = memory.entry(for: identity) {
            produced = Produced(entry: entry, source: .memory)
        } else {
            let (made, joined) = try await flights.run(identity) { [self] in
                try await produce(photo: photo, width: parameters.width, options: options, identity: identity)
            }
            produced = joined ? Produced(entry: made.entry, source: .joined) : made
        }
        metrics.thumbnail(from: produced.source)
        return response(
            produced, for: request, varies: parameters.format == .auto)
    }

    /// The photo a URL path names under the root.
    private func locate(_ relative: Substring) async throws(ThumbRequestError) -> Photo {
        switch source {
        case .directory(let root):
            let file = try root.file(atURLPath: relative)
            return Photo(identity: "\(file.path)\n\(file.stamp)", modified: file.modified, origin: .file(file))
        case .bucket(let bucket):
            let object = try await bucket.object(atURLPath: relative)
            return Photo(
                identity: "\(bucket.bucket)/\(object.key)\n\(object.info.etag)\n\(object.info.size)",
                modified: object.info.modified, origin: .object(object, bucket))
        }
    }

    /// Looks the thumbnail up in the disk cache or renders it, on a worker; keeps it in memory.
    private func produce(photo: Photo, width: Int, options: EncodeOptions, identity: String)
        async throws -> Produced
    {
        let maxBytes = configuration.policy.maxFileBytes
        let made = try await pool.run { [thumbnailer, metrics, digests] in
            switch photo.origin {
            case .file(let file):
                // The descriptor the root opened beneath itself: the name is never reopened.
                return try thumbnailer.thumbnail(
                    file: file.path, open: { _ in try file.opened.descriptor.duplicate() }, width: width,
                    options: options)
            case .object(let object, let bucket):
                // Downloaded once at most: to render (a miss), or to learn the digest of an
                // object stored without a SHA-256 that this server has not seen yet.
                var fetched: ImageData?
                let load = { () throws -> ImageData in
                    if let fetched { return fetched }
                    let bytes = try bucket.bytes(of: object, maxBytes: maxBytes)
                    metrics.sourceFetched()
                    fetched = bytes
                    return bytes
                }
                let digest: String
                if let known = object.info.sha256 ?? digests.digest(for: photo.identity) {
                    digest = known
                } else {
                    digest = try load().withUnsafeBytes { ContentDigest.of($0) }
                    digests.remember(digest, for: photo.identity)
                }
                return try thumbnailer.thumbnail(inputDigest: digest, load: load, width: width, options: options)
            }
        }
        let thumbnail = made.thumbnail
        if let warning = thumbnail.warning { logger.warning("\(warning)") }
        let entry = MemoryCache.Entry(
            body: ByteBuffer(bytes: thumbnail.data),
            etag: "\"\(made.key?.hex ?? ContentDigest.of(Array(identity.utf8)))\"",
            contentType: options.format.mimeType, modified: photo.modified, width: thumbnail.width,
            height: thumbnail.height)
        memory.insert(entry, for: identity)
        return Produced(entry: entry, source: made.cached ? .disk : .rendered)
    }

    /// 200 with the image (headers only for HEAD), or 304 when the client's copy is current.
    private func response(_ produced: Produced, for request: Request, varies: Bool) -> Response {
        let entry = produced.entry
        var headers = HTTPFields()
        headers[.eTag] = entry.etag
        headers[.lastModified] = HTTPDate.format(entry.modified)
        headers[.cacheControl] = "public, max-age=\(configuration.maxAge)"
        if varies { headers[.vary] = "Accept" }
        headers[.xContentTypeOptions] = "nosniff"
        headers[.xCache] = produced.source.rawValue
        if Self.isNotModified(request, entry: entry) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = entry.contentType
        headers[.imageSize] = "\(entry.width)x\(entry.height)"
        if request.method == .head {
            headers[.contentLength] = String(entry.body.readableBytes)
            return Response(status: .ok, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: entry.body))
    }

    /// RFC 9110 §13.1: `If-None-Match` (weak comparison, `*`) decides when present, else
    /// `If-Modified-Since` against the file's modification time.
    static func isNotModified(_ request: Request, entry: MemoryCache.Entry) -> Bool {
        if let match = request.headers[.ifNoneMatch] {
            return match.split(separator: ",").contains { tag in
                var tag = tag.trimmingSpaces
                if tag == "*" { return true }
                if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
                return tag == entry.etag
            }
        }
        if let since = request.headers[.ifModifiedSince], let date = HTTPDate.parse(since) {
            return entry.modified <= date
        }
        return false
    }

    /// The response for a refusal: plain text, not cached, `Retry-After` on 503.
    static func response(for refusal: ThumbRequestError) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        switch refusal {
        case .overloaded(let seconds): headers[.retryAfter] = String(seconds)
        case .methodNotAllowed: headers[.allow] = "GET, HEAD"
        default: break
        }
        return Response(
            status: refusal.status, headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: refusal.message + "\n")))
    }
}

extension HTTPField.Name {
    /// Where a thumbnail came from: memory, disk, rendered or joined (waited for a render).
    static let xCache = HTTPField.Name("X-Cache")!
    /// The thumbnail's size, `WIDTHxHEIGHT`.
    static let imageSize = HTTPField.Name("X-Image-Size")!
}
