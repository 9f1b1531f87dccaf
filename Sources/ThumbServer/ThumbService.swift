import CardPipeline
import ImageCore
import Logging
import ObjectStore
import PhotoSources
import RenderCache
import ServerShell
import Thumbnails

#if canImport(Glibc)
    import Glibc
#endif

/// Serves `/thumb/<path>?width=N…`: checks the signature, the parameters and the path, then
/// answers from memory, from the disk cache, or by rendering once on the worker pool while
/// identical requests wait for that one render. Never throws: every failure becomes a
/// response through `ThumbRequestError`.
public final class ThumbService: EventLoopAnswering, Sendable {
    /// The settings it was made with.
    public let configuration: ThumbConfiguration
    /// The metrics it counts into.
    public let metrics: ThumbMetrics
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
    /// The thumbnails of the most recent requests, bounded in bytes (`--memory-cache`): a
    /// thumbnail over a quarter of the bound is not kept.
    let memory: BoundedMemory<String, ReadyThumbnail>
    /// Disk entries read and found sound, sent from their files on later hits.
    let verifiedFiles = VerifiedEntryFiles()
    let flights = SingleFlight<Produced>()
    /// The SHA-256 digests of bucket objects stored without one, by identity (key, entity tag,
    /// size): each such object is downloaded once per server to learn it, not per request.
    let digests = BoundedMemory<String, String>(capacity: 100_000)
    let logger: Logger

    /// Where the routes are mounted (`ThumbRoutes`); the photo's path under the root follows it.
    public static let path = "/thumb"

    /// The photo's path under the root in a request's path (`/thumb/2024/a.jpg` gives
    /// `2024/a.jpg`), cut by bytes: the group holds only paths that go on with a slash.
    static func relativePath(_ requestPath: String) -> Substring {
        Substring(requestPath.utf8.dropFirst(path.utf8.count + 1))
    }

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
        let entry: ReadyThumbnail
        let source: ThumbMetrics.Source
    }

    /// Opens the root and starts the workers.
    /// - Throws: `RootDirectoryError` for a root that cannot be served.
    public init(configuration: ThumbConfiguration, cache: ContentStore, logger: Logger) throws {
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
        memory = BoundedMemory(capacity: configuration.memoryCacheBytes, largestShare: 4) { key, thumbnail in
            thumbnail.cost + key.utf8.count
        }
        metrics = ThumbMetrics()
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
}
