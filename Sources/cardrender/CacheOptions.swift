import ArgumentParser
import AsyncHTTPClient
import NIOCore
import ObjectStore
import RenderCache

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Cache options shared by `render`, `thumb`, `serve` and `cache`.
struct CacheOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The cache directory (default: $XDG_CACHE_HOME/cardrender or ~/.cache/cardrender), or s3://BUCKET[/PREFIX] for a cache shared by every node, behind the default directory (AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY).",
            valueName: "dir|s3-url"))
    var cache: String?

    @Flag(help: "Neither read nor fill the cache.")
    var noCache = false

    @Option(
        help: ArgumentHelp(
            "Largest size of the cache, e.g. 500M or 2G (least recently used entries go first).", valueName: "size"))
    var cacheMaxSize: ByteCount = ByteCount(bytes: 2 << 30)

    /// The cache directory these options name (the default one under an S3 cache).
    var directory: String { cache.flatMap { $0.hasPrefix("s3://") ? nil : $0 } ?? DiskStore.defaultDirectory }

    /// The bucket and prefix of `--cache s3://BUCKET[/PREFIX]`, nil for a directory.
    var bucket: (name: String, prefix: String)? {
        guard let cache, cache.hasPrefix("s3://") else { return nil }
        let path = cache.dropFirst("s3://".count).split(separator: "/", maxSplits: 1)
        return path.first.map { (String($0), path.count > 1 ? String(path[1]) : "") }
    }

    func validate() throws {
        guard let cache, cache.hasPrefix("s3://") else { return }
        guard let bucket, !bucket.name.isEmpty else {
            throw ValidationError("--cache: expected s3://BUCKET or s3://BUCKET/PREFIX; received '\(cache)'.")
        }
        guard AWSCredentials(environment: ProcessInfo.processInfo.environment) != nil else {
            throw ValidationError(
                "--cache \(cache): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (credentials are never taken on the command line)."
            )
        }
    }

    /// The HTTP client of the shared cache, for the whole process (so never shut down): a
    /// store that does not accept connections is given up on after 3 seconds, not after
    /// the 30 a slow answer may take.
    static let http = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: HTTPClient.Configuration(timeout: .init(connect: .seconds(3), read: .seconds(30))))

    /// The S3 store of `--cache s3://...`, configured from the standard variables.
    /// - Parameter health: how its failures are remembered (default: for the whole run).
    func sharedStore(health: S3Health = S3Health()) -> S3Store? {
        guard let bucket, let client = Self.client() else { return nil }
        return S3Store(client: client, bucket: bucket.name, prefix: bucket.prefix, health: health)
    }

    /// A client of the S3 store the standard variables name (`AWS_ENDPOINT_URL[_S3]`,
    /// `AWS_REGION`, the credentials), or nil without credentials.
    static func client() -> S3Client? {
        let environment = ProcessInfo.processInfo.environment
        guard let credentials = AWSCredentials(environment: environment) else { return nil }
        let region = environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1"
        let endpoint =
            environment["AWS_ENDPOINT_URL_S3"] ?? environment["AWS_ENDPOINT_URL"]
            ?? "https://s3.\(region).amazonaws.com"
        return S3Client(endpoint: endpoint, signer: SigV4Signer(credentials: credentials, region: region), http: http)
    }

    /// Ends a batch whose shared cache failed: exit 75 (`EX_TEMPFAIL`: the scheduler should
    /// run the shard again) when the store did not answer, 1 when it refused this node (bad
    /// credentials or permissions: a retry cannot help). The outputs are written either way.
    static func checkShared(_ cache: ContentStore?) throws {
        guard let store = cache?.shared as? S3Store, let failure = store.health.failure else { return }
        if failure.isTransient {
            Console.error(
                "cardrender: the shared cache \(store.location) failed (\(failure)); the outputs are written but not all are in the shared cache. Exiting 75 (temporary failure) so that this shard is run again."
            )
            throw ExitCode(75)
        }
        Console.error(
            "cardrender: the shared cache \(store.location) refused this node (\(failure)); the outputs are written. Exiting 1: a retry cannot help until the store's configuration is fixed."
        )
        throw ExitCode(1)
    }

    /// Opens the cache unless `--no-cache`; problems are reported and the work goes on uncached.
    func open() -> ContentStore? {
        guard !noCache else { return nil }
        do {
            let shared = sharedStore()
            if let shared {
                // Probed before the batch: a node the store refuses (a wrong secret) or that
                // cannot reach it is told now, and ends with the status `checkShared` gives,
                // even when its disk layer answers every item.
                if case .success(let error?) = S3Client.blocking({ await shared.probe() }) {
                    Console.error(
                        "cardrender: warning: the shared cache \(shared.location) \(error.isTransient ? "does not answer" : "refuses this node") (\(error)); working from the disk cache."
                    )
                }
            }
            return try ContentStore(directory: directory, maxBytes: cacheMaxSize.bytes, shared: shared) {
                Console.error($0)
            }
        } catch {
            Console.error("cardrender: warning: the cache cannot be used (\(error)); working without it.")
            return nil
        }
    }
}

/// A size in bytes written as a number with an optional K, M, G or T suffix (powers of 1024).
struct ByteCount: ExpressibleByArgument, CustomStringConvertible {
    let bytes: Int

    init(bytes: Int) {
        self.bytes = bytes
    }

    init?(argument: String) {
        var text = argument.uppercased()
        for suffix in ["IB", "B"] where text.hasSuffix(suffix) && text.count > suffix.count {
            text.removeLast(suffix.count)
        }
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var multiplier = 1
        if let last = text.last, let unit = units[last] {
            multiplier = unit
            text.removeLast()
        }
        guard let value = Double(text), value >= 0, value * Double(multiplier) < Double(Int.max) else { return nil }
        bytes = Int(value * Double(multiplier))
    }

    var description: String {
        for (unit, size) in [("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)] where bytes >= size && bytes % size == 0 {
            return "\(bytes / size)\(unit)"
        }
        return "\(bytes)"
    }
}
