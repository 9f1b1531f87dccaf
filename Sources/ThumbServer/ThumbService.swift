import CardPipeline
import FileUtilities
import HTTPTypes
import Hummingbird
import ImageCore
import Logging
import NIOCore
import NIOPosix
import ObjectStore
import PhotoSources
import RenderCache
import SystemPackage
import Thumbnails

#if canImport(Glibc)
    import Glibc
#endif

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
    public let cache: ContentStore
    /// Where the photos are; nil for a server without `--root` (`/thumb/` is then 404).
    let source: Source?
    let signer: URLSigner?
    let thumbnailer: CachedThumbnailer
    /// The photos' DCT-scaled decodes kept for their next widths (`--decoded-photos`).
    let decodedPhotos: DecodedPhotos
    let memory: MemoryCache
    /// Disk entries read and found sound, sent from their files on later hits.
    let verifiedFiles = VerifiedEntryFiles()
    let flights = SingleFlight<Produced>()
    let digests = ObjectDigestMemo()
    let logger: Logger

    /// The route prefix.
    static let prefix = "/thumb/"

    /// The bound on whole-picture decodes in flight (`DecodeBudget`): one 12 MP HEIC's
    /// (about 60 MB on the fast path, 110 MB on libvips's) and the streamed and DCT-scaled
    /// JPEGs beside it, which reserve nothing: two iPhone photos decode one after the other,
    /// so `serve`'s peak under misses holds one, not one per worker (a worker may wait
    /// meanwhile: memory bought with some throughput, measured in RESULTS.md).
    static let decodeBudgetBytes = 96 << 20

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
    public init(configuration: ServerConfiguration, cache: ContentStore, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        if let root = configuration.root, root.hasPrefix("s3://") {
            let path = root.dropFirst("s3://".count).split(separator: "/", maxSplits: 1)
            guard let client = configuration.bucketClient, let bucket = path.first else {
                throw RootDirectoryError(
                    directory: root,
                    reason: "an s3://BUCKET/PREFIX root needs the store's endpoint and credentials (AWS_* variables)")
            }
            source = .bucket(
                BucketRoot(client: client, bucket: String(bucket), prefix: path.count > 1 ? String(path[1]) : ""))
        } else if let root = configuration.root {
            source = .directory(try RootDirectory(root))
        } else {
            source = nil
        }
        signer = configuration.signingKey.map(URLSigner.init)
        self.cache = cache
        decodedPhotos = DecodedPhotos(capacity: configuration.decodedPhotoBytes)
        thumbnailer = CachedThumbnailer(
            thumbnailer: Thumbnailer(
                maxWidth: configuration.maxWidth, policy: configuration.policy, engine: configuration.engine,
                decodedPhotos: decodedPhotos, decodeBudget: DecodeBudget(capacity: Self.decodeBudgetBytes)),
            cache: cache)
        memory = MemoryCache(capacity: configuration.memoryCacheBytes)
        metrics = ServerMetrics()
        pool = WorkPool(workers: configuration.workers, queueLimit: configuration.queueLimit)
    }

    /// What a `/thumb` request asks for, once its signature, parameters and format are checked.
    struct Asked: Sendable {
        let request: ThumbnailRequest
        let options: EncodeOptions
        /// The request headers the answer depends on (`Vary`): `Accept` for `format=auto`,
        /// the Client Hints read.
        let vary: [String]
        /// `exp=`: the second the URL stops being valid.
        let expires: Int?

        /// What identifies the answer for `photo` without reading it.
        func identity(of photo: Photo) -> String {
            "\(photo.identity)\n\(request.key)\n\(options.format.rawValue)\n\(options.quality)"
        }
    }

    /// An answer ready to write: status, headers and body (nil for a 304 or a HEAD).
    struct Answer: Sendable {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        let body: ByteBuffer?
        /// A body to send from a file instead (`body` is then nil): the event loop's
        /// answer to a disk hit; whoever writes the answer closes the descriptor.
        var file: FileBody? = nil
    }

    /// `length` bytes at `offset` of the open file `descriptor`.
    struct FileBody: Sendable {
        let descriptor: SystemPackage.FileDescriptor
        let offset: Int
        let length: Int
    }

    /// The response to a `/thumb/…` request: the thumbnail, a 304, or the refusal's status and text.
    func respond(to request: Request) async -> Response {
        if request.method == .options, !configuration.allowedOrigins.isEmpty {
            var headers = HTTPFields()
            headers[.accessControlAllowMethods] = "GET, HEAD"
            headers[.accessControlMaxAge] = "86400"
            headers[.cacheControl] = "no-store"
            decorate(&headers, asked: nil, requestHeaders: request.headers)
            return Response(status: .noContent, headers: headers)
        }
        let answer: Answer
        do {
            answer = try await thumbnail(
                method: request.method, path: request.uri.path, query: request.uri.query, headers: request.headers)
        } catch {
            let refusal = ThumbRequestError.from(error, retryAfter: configuration.retryAfter)
            if refusal == .internalError {
                logger.error("thumbnail failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            } else if case .unprocessable = refusal, let error = error as? ImageInputError {
                logger.notice("image refused", metadata: ["error": "\(error)"])
            }
            if let fallback = await fallback(for: refusal, request: request) { return fallback }
            var response = Self.response(for: refusal)
            decorate(&response.headers, asked: nil, requestHeaders: request.headers)
            return response
        }
        return Response(
            status: answer.status, headers: answer.headers,
            body: answer.body.map { ResponseBody(byteBuffer: $0) } ?? .init())
    }

    /// `--fallback-image`: for a photo missing (404), refused (415) or damaged (422), that
    /// image fitted to the box asked, with the true status and `Cache-Control: no-store`
    /// (the log line and the metrics still count the failure). Nil without a fallback image,
    /// for other refusals, or when the request itself is at fault (its parameters, its
    /// signature), or when the fallback cannot be made now (no worker free).
    private func fallback(for refusal: ThumbRequestError, request: Request) async -> Response? {
        guard let image = configuration.fallbackImage, [404, 415, 422].contains(refusal.status.code),
            request.method == .get || request.method == .head,
            let asked = try? asked(
                method: request.method, path: request.uri.path, query: request.uri.query, headers: request.headers)
        else { return nil }
        let identity = "fallback\n\(asked.request.key)\n\(asked.options.format.rawValue)\n\(asked.options.quality)"
        var entry = memory.entry(for: identity)
        if entry == nil {
            guard
                let made = try? await pool.run({ [thumbnailer] in
                    try thumbnailer.thumbnailer.thumbnail(of: image, request: asked.request, options: asked.options)
                })
            else { return nil }
            let fitted = MemoryCache.Entry(
                body: ByteBuffer(bytes: made.data), etag: "\"fallback\"", contentType: made.mimeType, modified: 0,
                width: made.width, height: made.height, maxAge: 0, frames: Self.framesHeader(made))
            memory.insert(fitted, for: identity)
            entry = fitted
        }
        guard let entry else { return nil }
        metrics.fallbackSent()
        var headers = HTTPFields()
        headers[.contentType] = entry.contentHeaders[.contentType]
        headers[.imageSize] = entry.contentHeaders[.imageSize]
        headers[.contentLength] = entry.contentHeaders[.contentLength]
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        headers[.imageError] = refusal.message
        decorate(&headers, asked: asked, requestHeaders: request.headers)
        return Response(
            status: refusal.status, headers: headers,
            body: request.method == .head ? .init() : ResponseBody(byteBuffer: entry.body))
    }

    /// `X-Image-Frames` for a thumbnail of fewer frames than its photo: `1 of 30`.
    static func framesHeader(_ thumbnail: Thumbnail) -> String? {
        thumbnail.sourceFrames > thumbnail.frames ? "\(thumbnail.frames) of \(thumbnail.sourceFrames)" : nil
    }

    /// The headers every answer to a request carries besides its own: `Vary` (what it was
    /// chosen by), `Accept-CH` (the Client Hints read), CORS and `Timing-Allow-Origin`
    /// (`--allow-origin`), and a `max-age` no later than the URL's expiry.
    func decorate(_ fields: inout HTTPFields, asked: Asked?, requestHeaders: HTTPFields) {
        var vary = asked?.vary ?? []
        if configuration.clientHints { fields[.acceptCH] = "Sec-CH-DPR, Sec-CH-Width" }
        let origins = configuration.allowedOrigins
        if origins.contains("*") {
            fields[.accessControlAllowOrigin] = "*"
            fields[.timingAllowOrigin] = "*"
        } else if !origins.isEmpty {
            vary.append("Origin")
            if let origin = requestHeaders[.origin], origins.contains(origin) {
                fields[.accessControlAllowOrigin] = origin
                fields[.timingAllowOrigin] = origin
            }
        }
        if !vary.isEmpty { fields[.vary] = vary.joined(separator: ", ") }
        if let expires = asked?.expires, fields[.cacheControl]?.hasPrefix("public") == true {
            let left = max(0, expires - Int(time(nil)))
            fields[.cacheControl] = "public, max-age=\(min(configuration.maxAge, left))"
        }
    }

    /// The answer to a `/thumb` request that needs no waiting, decided on the event loop that
    /// read it (`ThumbHTTP1Channel`): a thumbnail in memory, or a 304 for a client whose copy
    /// is current. Nil for everything else (a render, a disk or bucket read, any refusal),
    /// which then takes the asynchronous path, where the same checks run again and decide.
    func answerAtOnce(method: HTTPRequest.Method, path: String, query: String?, headers: HTTPFields) -> Answer? {
        guard case .directory(let root)? = source,
            let asked = try? asked(method: method, path: path, query: query, headers: headers),
            let file = try? root.file(atURLPath: path.dropFirst(Self.prefix.count))
        else { return nil }
        let photo = Photo(identity: "\(file.path)\n\(file.stamp)", modified: file.modified, origin: .file(file))
        return answerAtOnce(photo: photo, asked: asked, method: method, headers: headers)
            ?? fileAnswer(photo: photo, asked: asked, method: method, headers: headers)
    }

    /// A disk hit sent from the entry's file (sendfile), when the key is known and the file
    /// is one this server read and found sound before (`VerifiedEntryFiles`): no read, no
    /// copy in user space. Its headers are those of the same thumbnail from memory.
    private func fileAnswer(photo: Photo, asked: Asked, method: HTTPRequest.Method, headers: HTTPFields) -> Answer? {
        guard let key = knownKey(of: photo, asked),
            let opened = verifiedFiles.open(key, path: cache.store.path(of: key))
        else { return nil }
        if opened.touch { cache.store.touch(key) }
        cache.entries.countHit()
        metrics.thumbnail(from: .disk)
        var fields = MemoryCache.Entry.validators(
            etag: "\"\(key.hex)\"", modified: photo.modified, maxAge: configuration.maxAge)
        fields[.contentType] = opened.contentType
        fields[.imageSize] = "\(opened.width)x\(opened.height)"
        if let frames = opened.frames { fields[.imageFrames] = frames }
        fields[.contentLength] = String(opened.length)
        decorate(&fields, asked: asked, requestHeaders: headers)
        fields[.xCache] = ServerMetrics.Source.disk.rawValue
        guard method != .head else {
            try? opened.descriptor.close()
            return Answer(status: .ok, headers: fields, body: nil)
        }
        metrics.sentFromFile()
        return Answer(
            status: .ok, headers: fields, body: nil,
            file: FileBody(descriptor: opened.descriptor, offset: opened.offset, length: opened.length))
    }

    private func thumbnail(method: HTTPRequest.Method, path: String, query: String?, headers: HTTPFields)
        async throws -> Answer
    {
        let asked = try asked(method: method, path: path, query: query, headers: headers)
        let photo = try await locate(path.dropFirst(Self.prefix.count))
        if let answer = answerAtOnce(photo: photo, asked: asked, method: method, headers: headers) { return answer }
        let identity = asked.identity(of: photo)
        let (made, joined) = try await flights.run(identity) { [self] in
            if let entry = await diskEntry(of: photo, asked) { return Produced(entry: entry, source: .disk) }
            return try await produce(photo: photo, asked: asked, identity: identity)
        }
        let produced = joined ? Produced(entry: made.entry, source: .joined) : made
        metrics.thumbnail(from: produced.source)
        return answer(produced.entry, source: produced.source, method: method, headers: headers, asked: asked)
    }

    /// Checks the method, the signature and the parameters, and chooses the format.
    private func asked(method: HTTPRequest.Method, path: String, query: String?, headers: HTTPFields) throws -> Asked {
        guard method == .get || method == .head else { throw ThumbRequestError.methodNotAllowed }
        var query = Substring(query ?? "")
        if let signer { query = try signer.verify(path: path[...], query: query) }
        let parameters = try ThumbParameters.parse(query: query, rules: rules)
        if let expires = parameters.expires, expires < Int(time(nil)) {
            throw ThumbRequestError.forbidden(reason: "the URL expired at \(HTTPDate.format(expires))")
        }
        var vary: [String] = parameters.format == .auto ? ["Accept"] : []
        var box = parameters.box
        if configuration.clientHints { box = try hinted(box, parameters: parameters, headers: headers, vary: &vary) }
        let options: EncodeOptions
        if parameters.placeholder != nil {
            vary.removeAll { $0 == "Accept" }
            options = EncodeOptions(format: .jpeg)
        } else {
            let format =
                switch parameters.format {
                case .fixed(let format): format
                case .auto:
                    // A GIF or WebP may be animated: WebP keeps it so, AVIF would not. (The
                    // name decides, as the answer's format is chosen before the photo is
                    // read; an animation under another name is sent as its first frame.)
                    FormatNegotiation.choose(accept: headers[.accept], animated: Self.mayBeAnimated(path))
                }
            options = EncodeOptions(
                format: format, quality: parameters.quality(for: format, defaults: configuration.qualities))
        }
        let request = ThumbnailRequest(
            box: box.canonical, placeholder: parameters.placeholder, maxFrames: configuration.maxFrames)
        return Asked(request: request, options: options, vary: vary, expires: parameters.expires)
    }

    /// Whether the photo's name says GIF or WebP, the formats that hold animations.
    static func mayBeAnimated(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".gif") || lower.hasSuffix(".webp")
    }

    /// The rules queries are read under (`--preset`, `--presets-only`, `--client-hints`).
    private var rules: ThumbParameters.Rules {
        ThumbParameters.Rules(
            maxWidth: configuration.maxWidth, presets: configuration.presets, presetsOnly: configuration.presetsOnly,
            sizeOptional: configuration.clientHints)
    }

    /// `--client-hints`: a box without a width takes `Sec-CH-Width` (device pixels), and a
    /// query without `dpr` takes `Sec-CH-DPR`; a width either gives is snapped up to the next
    /// of `--widths` (the largest past the last), so unsigned headers add a bounded number of
    /// variants. Each header that could decide the answer is added to `vary`.
    private func hinted(
        _ box: ThumbnailBox, parameters: ThumbParameters, headers: HTTPFields, vary: inout [String]
    ) throws(ThumbRequestError) -> ThumbnailBox {
        var box = box
        let widths = configuration.widths
        func snapped(_ width: Int) -> Int { widths.first { $0 >= width } ?? widths.last ?? width }
        if box.width == nil && box.height == nil {
            vary.append("Sec-CH-Width")
            guard let text = headers[.secCHWidth], let width = Int(Substring(text).trimmingSpaces), width >= 1 else {
                throw .badParameter(
                    name: "width", expected: "a width, or a Sec-CH-Width header (Client Hints are on)",
                    received: headers[.secCHWidth])
            }
            box.width = snapped(width)
            box.dpr = 1
        } else if !parameters.namesDensity, let width = box.width {
            vary.append("Sec-CH-DPR")
            if let text = headers[.secCHDPR], let dpr = Double(Substring(text).trimmingSpaces), dpr.isFinite, dpr > 1 {
                // The snapped width as a density, no larger than the sides allow.
                let pixels = snapped(Int((Double(width) * min(4, dpr)).rounded()))
                let longest = Double(max(width, box.height ?? 0))
                box.dpr = max(1, min(Double(pixels) / Double(width), Double(configuration.maxWidth) / longest))
            }
        }
        return box
    }

    /// A memory hit, or a 304 decided from the cache key when the photo's digest is known
    /// without reading it (the digest memo for files, the store's checksum for objects): no
    /// entry is read for a client whose copy is current.
    private func answerAtOnce(photo: Photo, asked: Asked, method: HTTPRequest.Method, headers: HTTPFields) -> Answer? {
        if let entry = memory.entry(for: asked.identity(of: photo)) {
            metrics.thumbnail(from: .memory)
            return answer(entry, source: .memory, method: method, headers: headers, asked: asked)
        }
        guard headers[.ifNoneMatch] != nil || headers[.ifModifiedSince] != nil, let etag = knownTag(of: photo, asked)
        else { return nil }
        guard Self.isNotModified(headers, etag: etag, modified: photo.modified) else { return nil }
        metrics.thumbnail(from: .tag)
        var fields = MemoryCache.Entry.validators(etag: etag, modified: photo.modified, maxAge: configuration.maxAge)
        decorate(&fields, asked: asked, requestHeaders: headers)
        fields[.xCache] = ServerMetrics.Source.tag.rawValue
        return Answer(status: .notModified, headers: fields, body: nil)
    }

    /// The thumbnail's tag (its cache key) when the photo's digest is known without reading it.
    private func knownTag(of photo: Photo, _ asked: Asked) -> String? {
        knownKey(of: photo, asked).map { "\"\($0.hex)\"" }
    }

    /// The thumbnail's cache key when the photo's digest is known without reading it.
    private func knownKey(of photo: Photo, _ asked: Asked) -> CacheKey? {
        let digest: String?
        switch photo.origin {
        case .file(let file): digest = cache.memo.digest(for: file.fileStamp)
        case .object(let object, _): digest = object.info.sha256 ?? digests.digest(for: photo.identity)
        }
        guard let digest else { return nil }
        return try? thumbnailer.key(inputDigest: digest, request: asked.request, options: asked.options)
    }

    /// The thumbnail from this node's disk cache, read on NIO's blocking-I/O threads, when
    /// its key is known without reading the photo; kept in memory. A disk hit so never
    /// waits behind renders for a worker. Nil when the key is unknown or the disk has no
    /// entry: the workers then look further (the shared store) or render.
    private func diskEntry(of photo: Photo, _ asked: Asked) async -> MemoryCache.Entry? {
        guard let key = knownKey(of: photo, asked) else { return nil }
        let read = try? await NIOThreadPool.singleton.runIfActive { [cache, thumbnailer, verifiedFiles] in
            let thumbnail = cache.entries.entry(for: key, nearestOnly: true).flatMap {
                thumbnailer.thumbnail(in: $0, format: asked.options.format)
            }
            if let thumbnail {
                verifiedFiles.record(
                    key, path: cache.store.path(of: key), part: CachedThumbnailer.imagePart, width: thumbnail.width,
                    height: thumbnail.height, contentType: thumbnail.mimeType, frames: Self.framesHeader(thumbnail))
            }
            return thumbnail
        }
        guard let thumbnail = read else { return nil }
        return remember(thumbnail, key: key, photo: photo, identity: asked.identity(of: photo))
    }

    /// The photo a URL path names under the root.
    private func locate(_ relative: Substring) async throws(ThumbRequestError) -> Photo {
        switch source {
        case nil: throw .notFound
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
    private func produce(photo: Photo, asked: Asked, identity: String) async throws -> Produced {
        let (request, options) = (asked.request, asked.options)
        let maxBytes = configuration.policy.maxFileBytes
        let made = try await pool.run { [thumbnailer, metrics, digests] in
            switch photo.origin {
            case .file(let file):
                // The descriptor the root opened beneath itself: the name is never reopened.
                return try thumbnailer.thumbnail(
                    file: file.path, open: { _ in try file.opened.descriptor.duplicate() }, request: request,
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
                return try thumbnailer.thumbnail(inputDigest: digest, load: load, request: request, options: options)
            }
        }
        if let warning = made.thumbnail.warning { logger.warning("\(warning)") }
        let entry = remember(made.thumbnail, key: made.key, photo: photo, identity: identity)
        return Produced(entry: entry, source: made.cached ? .disk : .rendered)
    }

    /// The memory entry of a thumbnail, its headers made once; kept in the memory cache.
    private func remember(_ thumbnail: Thumbnail, key: CacheKey?, photo: Photo, identity: String) -> MemoryCache.Entry {
        let entry = MemoryCache.Entry(
            body: ByteBuffer(bytes: thumbnail.data),
            etag: "\"\(key?.hex ?? ContentDigest.of(Array(identity.utf8)))\"",
            contentType: thumbnail.mimeType, modified: photo.modified, width: thumbnail.width,
            height: thumbnail.height, maxAge: configuration.maxAge, frames: Self.framesHeader(thumbnail))
        memory.insert(entry, for: identity)
        return entry
    }

    /// 200 with the image (headers only for HEAD), or 304 when the client's copy is current;
    /// the entry's headers were made when it was stored.
    private func answer(
        _ entry: MemoryCache.Entry, source: ServerMetrics.Source, method: HTTPRequest.Method, headers: HTTPFields,
        asked: Asked
    ) -> Answer {
        let notModified = Self.isNotModified(headers, etag: entry.etag, modified: entry.modified)
        var fields = notModified ? entry.validatorHeaders : entry.contentHeaders
        decorate(&fields, asked: asked, requestHeaders: headers)
        fields[.xCache] = source.rawValue
        if notModified { return Answer(status: .notModified, headers: fields, body: nil) }
        return Answer(status: .ok, headers: fields, body: method == .head ? nil : entry.body)
    }

    /// RFC 9110 §13.1: `If-None-Match` (weak comparison, `*`) decides when present, else
    /// `If-Modified-Since` against the file's modification time.
    static func isNotModified(_ headers: HTTPFields, etag: String, modified: Int) -> Bool {
        if let match = headers[.ifNoneMatch] {
            return match.split(separator: ",").contains { tag in
                var tag = tag.trimmingSpaces
                if tag == "*" { return true }
                if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
                return tag == etag
            }
        }
        if let since = headers[.ifModifiedSince], let date = HTTPDate.parse(since) {
            return modified <= date
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
    /// An animation's frames sent and held, when fewer were sent: `1 of 30`.
    static let imageFrames = HTTPField.Name("X-Image-Frames")!
    /// Why a fallback image was sent instead of the photo's thumbnail.
    static let imageError = HTTPField.Name("X-Image-Error")!
    /// The Client Hints a server reads (`--client-hints`).
    static let acceptCH = HTTPField.Name("Accept-CH")!
    static let secCHWidth = HTTPField.Name("Sec-CH-Width")!
    static let secCHDPR = HTTPField.Name("Sec-CH-DPR")!
    /// Who may read the answers' timings (Resource Timing), as CORS says who may read them.
    static let timingAllowOrigin = HTTPField.Name("Timing-Allow-Origin")!
}
