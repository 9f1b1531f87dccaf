import ImageCore
import ObjectStore
import PhotoSources

/// Everything `cardrender serve` is told: where the images are, how much work it takes on,
/// how long clients may cache, whether URLs must be signed, and how long and how many
/// connections it keeps. (The cache is given to `ThumbServerApplication.build` beside it.)
public struct ServerConfiguration: Sendable {
    /// The directory whose images are served, or `s3://BUCKET/PREFIX` (with
    /// `bucketClient`); nothing outside it is ever read.
    public var root: String?
    /// The client of the store an `s3://` root is in.
    public var bucketClient: S3Client?
    /// Address to listen on (default 127.0.0.1: put a web server in front).
    public var host: String
    /// Port to listen on; 0 picks a free one.
    public var port: Int
    /// Bytes of encoded thumbnails kept in memory for the hottest requests.
    public var memoryCacheBytes: Int
    /// Bytes of DCT-scaled photo decodes kept for the next widths of the same photo
    /// (`DecodedPhotos`; 32 MiB: some twenty 12 MP photos at 1/4 scale, eighty at 1/8).
    public var decodedPhotoBytes: Int = 32 << 20
    /// The largest `width` accepted.
    public var maxWidth: Int
    /// Threads that do pixel work (decode, resize, encode, hash). Never the event loop.
    public var workers: Int
    /// Requests allowed to wait for a worker; one more is refused with 503.
    public var queueLimit: Int
    /// `Cache-Control: max-age` of thumbnails, in seconds.
    public var maxAge: Int
    /// The signing key; when set, every `/thumb` URL must carry a valid `sig`.
    public var signingKey: SigningKey?
    /// Input limits (pixels, bytes, damaged data).
    public var policy: DecodePolicy
    /// Which pixel path may make thumbnails.
    public var engine: RenderEngine
    /// `Retry-After` seconds sent with 503.
    public var retryAfter: Int
    /// How long a connection may take to send a complete request head, counted from its
    /// opening or from the end of its previous response; also how long an idle keep-alive
    /// connection is kept. A client that trickles a request, or sends nothing, is closed.
    public var idleTimeout: Duration
    /// The most connections open at once; past it the server stops accepting until one
    /// closes (new clients wait in the kernel's listen queue).
    public var maxConnections: Int
    /// `--quality-jpeg`, `--quality-webp`, `--quality-avif`: each format's quality when a
    /// query does not name one for it (absent: `EncodeOptions.defaultQuality`).
    public var qualities: [OutputFormat: Int] = [:]
    /// `--preset NAME=...`: the parameters `preset=NAME` stands for.
    public var presets: [String: [(name: String, value: String)]] = [:]
    /// `--presets-only`: queries may name a preset and nothing else.
    public var presetsOnly = false
    /// `--max-frames`: the most frames an animated answer keeps.
    public var maxFrames = 200
    /// `--client-hints`: read `Sec-CH-Width` and `Sec-CH-DPR`, snapped to `widths`.
    public var clientHints = false
    /// `--widths`: the widths hinted sizes snap up to, ascending.
    public var widths: [Int] = []
    /// `--fallback-image`: sent, fitted to the box, for a missing, refused or damaged photo.
    public var fallbackImage: ImageData?
    /// `--allow-origin`: the origins (or `*`) given CORS and `Timing-Allow-Origin` headers.
    public var allowedOrigins: [String] = []

    public init(
        root: String?,
        host: String = "127.0.0.1",
        port: Int = 8080,
        memoryCacheBytes: Int = 64 << 20,
        maxWidth: Int = 4096,
        workers: Int = 2,
        queueLimit: Int = 64,
        maxAge: Int = 86_400,
        signingKey: SigningKey? = nil,
        policy: DecodePolicy = .default,
        engine: RenderEngine = .auto,
        retryAfter: Int = 1,
        idleTimeout: Duration = .seconds(15),
        maxConnections: Int = 1024,
        bucketClient: S3Client? = nil
    ) {
        self.root = root
        self.bucketClient = bucketClient
        self.host = host
        self.port = port
        self.memoryCacheBytes = memoryCacheBytes
        self.maxWidth = maxWidth
        self.workers = workers
        self.queueLimit = queueLimit
        self.maxAge = maxAge
        self.signingKey = signingKey
        self.policy = policy
        self.engine = engine
        self.retryAfter = retryAfter
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
    }
}
