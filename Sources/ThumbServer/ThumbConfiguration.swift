import ImageCore
import ObjectStore
import PhotoSources

/// What the thumbnail routes (`/thumb`) are told: where the images are, how much work they
/// take on, how long clients may cache, whether URLs must be signed. (The socket's settings
/// are `ShellConfiguration`'s; the cache is given to `ThumbService` beside this.)
public struct ThumbConfiguration: Sendable {
    /// The directory whose images are served, or `s3://BUCKET/PREFIX` (with
    /// `bucketClient`); nothing outside it is ever read.
    public var root: String?
    /// The client of the store an `s3://` root is in.
    public var bucketClient: S3Client?
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
        memoryCacheBytes: Int = 64 << 20,
        maxWidth: Int = 4096,
        workers: Int = 2,
        queueLimit: Int = 64,
        maxAge: Int = 86_400,
        signingKey: SigningKey? = nil,
        policy: DecodePolicy = .default,
        engine: RenderEngine = .auto,
        retryAfter: Int = 1,
        bucketClient: S3Client? = nil
    ) {
        self.root = root
        self.bucketClient = bucketClient
        self.memoryCacheBytes = memoryCacheBytes
        self.maxWidth = maxWidth
        self.workers = workers
        self.queueLimit = queueLimit
        self.maxAge = maxAge
        self.signingKey = signingKey
        self.policy = policy
        self.engine = engine
        self.retryAfter = retryAfter
    }
}
