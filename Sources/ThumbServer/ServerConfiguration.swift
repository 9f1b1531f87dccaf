import VipsKit

/// Everything `cardrender serve` is told: where the images are, how much work it takes on,
/// how long clients may cache, and whether URLs must be signed. (The disk cache directory
/// is given to `ThumbServerApplication.build` beside it.)
public struct ServerConfiguration: Sendable {
    /// The directory whose images are served; nothing outside it is ever read.
    public var root: String
    /// Address to listen on (default 127.0.0.1: put a web server in front).
    public var host: String
    /// Port to listen on; 0 picks a free one.
    public var port: Int
    /// Size bound of the disk cache in bytes.
    public var cacheMaxBytes: Int
    /// Bytes of encoded thumbnails kept in memory for the hottest requests.
    public var memoryCacheBytes: Int
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
    /// `Retry-After` seconds sent with 503.
    public var retryAfter: Int

    public init(
        root: String,
        host: String = "127.0.0.1",
        port: Int = 8080,
        cacheMaxBytes: Int = 2 << 30,
        memoryCacheBytes: Int = 64 << 20,
        maxWidth: Int = 4096,
        workers: Int = 2,
        queueLimit: Int = 64,
        maxAge: Int = 86_400,
        signingKey: SigningKey? = nil,
        policy: DecodePolicy = .default,
        retryAfter: Int = 1
    ) {
        self.root = root
        self.host = host
        self.port = port
        self.cacheMaxBytes = cacheMaxBytes
        self.memoryCacheBytes = memoryCacheBytes
        self.maxWidth = maxWidth
        self.workers = workers
        self.queueLimit = queueLimit
        self.maxAge = maxAge
        self.signingKey = signingKey
        self.policy = policy
        self.retryAfter = retryAfter
    }
}
