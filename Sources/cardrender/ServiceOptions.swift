import ArgumentParser
import CardKit
import CardService
import Foundation
import ImageCore
import Logging
import ObjectStore
import PhotoSources
import PressKit
import RenderCache

/// The postcard service's options, shared by `serve` and `keys`: where its data is, and
/// which database holds its orders.
struct ServiceOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The postcard service's data directory: its photos and cards, and its SQLite database unless --database is given. Turns /v1 on.",
            valueName: "dir"))
    var data: String?

    @Option(
        help: ArgumentHelp(
            "PostgreSQL for the postcard service's orders, shared by every node: postgres://USER[:PASSWORD]@HOST[:PORT]/NAME (the password may come from PGPASSWORD).",
            valueName: "url"))
    var database: String?

    /// Whether the service is on.
    var isOn: Bool { data != nil || database != nil }

    /// Which database, for messages (no password).
    var databaseName: String {
        database.map { PostgresServiceDatabase.redacted($0) } ?? "SQLite in \(dataDirectory)/service.sqlite"
    }

    /// The data directory (default `./cardrender-data` beside a `--database`).
    var dataDirectory: String { data ?? "cardrender-data" }

    /// The database, migrated.
    func openDatabase() async throws -> any ServiceDatabase {
        let database: any ServiceDatabase
        if var url = self.database {
            // PGPASSWORD for a URL whose user has no password of its own.
            if let password = ProcessInfo.processInfo.environment["PGPASSWORD"],
                let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@"),
                !url[scheme.upperBound..<at].contains(":")
            {
                url.insert(contentsOf: ":" + password, at: at)
            }
            database = try await PostgresServiceDatabase(url: url)
        } else {
            try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
            database = try await SQLiteServiceDatabase(path: dataDirectory + "/service.sqlite")
        }
        do {
            try await OrderBook(database: database).migrate()
        } catch {
            await database.close()
            throw error
        }
        return database
    }
}

/// The options of a service node (`serve`): its queue, its leases, its keys' rate.
struct ServiceNodeOptions: ParsableArguments {
    @Option(help: "Cards this node renders at once from the queue.")
    var renderWorkers = 1

    @Option(help: "Seconds a node holds a card it renders before another node may take it over.")
    var leaseSeconds = 60

    @Option(help: "Requests a second per API key (bursts of twice that); more are refused with 429.")
    var rateLimit = 100

    @Option(
        help:
            "Seconds a request's body may pause: a body of which nothing more arrives for that long is refused with 408 (shorter than --idle-timeout, which closes a silent connection)."
    )
    var bodyTimeout = 10

    @Option(
        help: ArgumentHelp(
            "The slowest a body may come on average once its first --body-timeout seconds are past, in bytes a second; slower is 408.",
            valueName: "bytes"))
    var bodyMinRate = 4096

    @Option(help: ArgumentHelp("Seconds a whole request body may take to arrive; longer is 408.", valueName: "seconds"))
    var bodyDeadline = 300

    @Option(
        help: ArgumentHelp(
            "Seconds an upload or scan may wait for a free upload slot (slots are shared between keys); then 503 with Retry-After.",
            valueName: "seconds"))
    var uploadWait = 10

    @Option(
        help: ArgumentHelp(
            "A proxy (address or CIDR range, e.g. 127.0.0.1 or 10.0.0.0/8) whose X-Forwarded-For names the client, for the failed-authentication throttle; repeat for several. Without it, every client is the address it connects from.",
            valueName: "range"))
    var trustedProxy: [String] = []

    @Option(
        help:
            "This node's name in the queue's leases (default: the host name and the data directory, the same across restarts, so a restarted node takes its own unfinished cards back at once)."
    )
    var nodeName: String?

    @Option(
        help: ArgumentHelp(
            "Where every node keeps the service's photos and finished cards: s3://BUCKET[/PREFIX] (AWS_* variables), beside each node's --data; a prefix of its own, with no expiry rule (they are orders, not a cache). Without it, a single node keeps them in --data alone.",
            valueName: "s3-url"))
    var store: String?

    @Option(
        help: ArgumentHelp(
            "Photo decodes kept for the next preview of the same photo (an editor on a 12 MP photo keeps 5 to 16 MB), e.g. 384M.",
            valueName: "size"))
    var previewDecodes = ByteCount(bytes: 384 << 20)

    @Option(
        help: ArgumentHelp(
            "The country the service's cards are posted in (ISO 3166-1 code): the backs' country lines are in its language, and left out for its own addresses.",
            valueName: "code"))
    var postedFrom: String = "FR"

    @Option(
        help: ArgumentHelp(
            "How long events (and finished webhook deliveries) are kept: 30d, 12h; older ones are purged every hour.",
            valueName: "age"))
    var keepEvents = KeptFor(seconds: 30 * 86_400)

    @Flag(
        help:
            "Let webhook endpoints be loopback receivers (http://127.0.0.1:PORT/...), for a receiver on this machine; private and link-local addresses stay refused."
    )
    var allowLoopbackWebhooks = false

    func validate() throws {
        try PostedFrom.validate(postedFrom)
        guard renderWorkers >= 1 else {
            throw ValidationError("--render-workers must be at least 1; received \(renderWorkers).")
        }
        guard (1...86_400).contains(leaseSeconds) else {
            throw ValidationError("--lease-seconds must be from 1 to 86400; received \(leaseSeconds).")
        }
        guard (1...3600).contains(bodyTimeout) else {
            throw ValidationError("--body-timeout must be from 1 to 3600 seconds; received \(bodyTimeout).")
        }
        guard bodyMinRate >= 0 else {
            throw ValidationError("--body-min-rate must be at least 0 bytes a second; received \(bodyMinRate).")
        }
        guard (1...86_400).contains(bodyDeadline) else {
            throw ValidationError("--body-deadline must be from 1 to 86400 seconds; received \(bodyDeadline).")
        }
        guard (1...600).contains(uploadWait) else {
            throw ValidationError("--upload-wait must be from 1 to 600 seconds; received \(uploadWait).")
        }
        for range in trustedProxy where AddressRange(range) == nil {
            throw ValidationError(
                "--trusted-proxy: expected an IPv4 or IPv6 address or CIDR range (10.0.0.0/8, fd00::/8); received '\(range)'."
            )
        }
        guard (1...100_000).contains(rateLimit) else {
            throw ValidationError("--rate-limit must be from 1 to 100000; received \(rateLimit).")
        }
        if let store {
            guard bucket != nil else {
                throw ValidationError("--store: expected s3://BUCKET or s3://BUCKET/PREFIX; received '\(store)'.")
            }
            guard CacheOptions.client() != nil else {
                throw ValidationError(
                    "--store \(store): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (credentials are never taken on the command line)."
                )
            }
        }
    }

    /// The bucket and prefix of `--store`.
    var bucket: (name: String, prefix: String)? {
        guard let store, store.hasPrefix("s3://") else { return nil }
        let path = store.dropFirst("s3://".count).split(separator: "/", maxSplits: 1)
        guard let name = path.first, !name.isEmpty else { return nil }
        return (String(name), path.count > 1 ? String(path[1]) : "")
    }

    /// What `/v1` allows a client, from these options.
    var limits: APILimits {
        var limits = APILimits()
        limits.requestsPerSecond = Double(rateLimit)
        limits.bodyTimeout = .seconds(bodyTimeout)
        limits.bodyMinRate = bodyMinRate
        limits.bodyDeadline = .seconds(bodyDeadline)
        limits.uploadWait = .seconds(uploadWait)
        limits.trustedProxies = trustedProxy.compactMap(AddressRange.init)
        return limits
    }

    /// The node's name: `--node-name`, or the host name and a digest of the data directory's
    /// absolute path, which a restarted service keeps (a process id would change, and a
    /// restarted node would wait for its own leases to run out).
    func name(dataDirectory: String) -> String {
        if let nodeName { return nodeName }
        let directory = URL(fileURLWithPath: dataDirectory).standardizedFileURL.resolvingSymlinksInPath().path
        return "\(ProcessInfo.processInfo.hostName):\(ContentDigest.of(Data(directory.utf8)).prefix(8))"
    }

    /// The service, or nil when it is off.
    func open(
        _ data: ServiceOptions, decode: DecodePolicy, engine: RenderEngine, workers: Int,
        logger: Logger
    ) async throws -> PostcardService? {
        guard data.isOn else { return nil }
        // The service offers every frame and press: without them it would refuse customers'
        // cards as if they were wrong, so it does not start (naming what is missing).
        var presses: [String: PressProfile] = [:]
        for name in RenderCommand.PressName.allCases.map(\.rawValue) {
            do {
                if let press = try Resources.pressProfile(name) { presses[name] = press }
            } catch {
                Console.error(
                    "cardrender: the postcard service cannot start: the press profiles in \(Resources.pressProfilesDirectory()) cannot be used (\(String(describing: error).replacingOccurrences(of: "--press ", with: "the press "))); set CARDRENDER_PRESS_PROFILES to the directory that holds them."
                )
                throw ExitCode(64)
            }
        }
        let frames = Resources.framesDirectory(nil)
        let catalogue: FrameCatalogue
        do {
            catalogue = try FrameCatalogue(directory: frames)
        } catch {
            Console.error(
                "cardrender: the postcard service cannot start: the frame catalogue \(frames) cannot be read (\(error)); set CARDRENDER_FRAMES to the directory that holds it."
            )
            throw ExitCode(64)
        }
        let database = try await data.openDatabase()
        // A bucket that fails is skipped for 30 s (puts fail at once: the card waits in the queue).
        let shared = bucket.flatMap { bucket in
            CacheOptions.client().map {
                S3Store(
                    client: $0, bucket: bucket.name, prefix: bucket.prefix, health: S3Health(recoverAfter: .seconds(30))
                )
            }
        }
        let store = try ContentStore(directory: data.dataDirectory + "/store", maxBytes: .max, shared: shared) {
            logger.warning("\($0)")
        }
        var configuration = PostcardService.Configuration(
            database: database, store: store,
            settings: CardSettings(
                policy: decode, engine: engine, postedFrom: PostedFrom.code(postedFrom)),
            catalogue: catalogue,
            presses: presses, previewThreads: workers, renderThreads: renderWorkers,
            decodedPhotoBytes: previewDecodes.bytes,
            lease: .seconds(leaseSeconds), nodeName: name(dataDirectory: data.dataDirectory)
        )
        configuration.webhooks.allowLoopback = allowLoopbackWebhooks
        configuration.keepEvents = .seconds(keepEvents.seconds)
        return PostcardService(configuration: configuration, logger: logger)
    }
}
