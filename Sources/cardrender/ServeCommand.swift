import ArgumentParser
import CardKit
import CardPipeline
import CardService
import ImageCore
import Logging
import ObjectStore
import PhotoSources
import RenderCache
import ServerShell
import ThumbServer
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// `cardrender serve`: GD-style thumbnails over HTTP for web servers, and the postcard
/// service's `/v1` for the app.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve thumbnails (--root) and the postcard service (--data, --database) over HTTP.",
        discussion: """
            --root: GET /thumb/<path under root>?width=N[&format=png|jpeg|webp|avif|tiff|gif|auto][&quality=Q] \
            returns a thumbnail (PNG by default; auto picks AVIF, WebP or JPEG from Accept); \
            height, fit, gravity, focus, background, dpr, placeholder and preset ask for a box \
            (docs/thumbnails.md). \
            With --cache s3://BUCKET, every instance (and every batch) shares the thumbnails \
            it renders; a store that fails is skipped for 30 s, and thumbnails are still served. \
            --data DIR (and --database postgres://... for several nodes): the postcard service \
            under /v1 (photos, previews, cards, print runs; API keys from `cardrender keys`; \
            its OpenAPI document at /v1/openapi.json; docs/service.md). \
            Also GET /healthz and GET /metrics (Prometheus). One log line per request on \
            stderr. SIGTERM or SIGINT: stop accepting, finish in-flight requests, exit 0.
            """
    )

    @Option(
        help: ArgumentHelp(
            "The directory whose images are served, or s3://BUCKET[/PREFIX] for photos in an S3 bucket (AWS_* variables; one HEAD per request, a download only to render).",
            valueName: "dir|s3-url"))
    var root: String?

    @OptionGroup var postcards: ServiceOptions

    @OptionGroup var node: ServiceNodeOptions

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0: any free port, printed at start).")
    var port = 8080

    @OptionGroup var caching: CacheOptions

    @Option(help: ArgumentHelp("Thumbnails kept in memory for the hottest requests, e.g. 64M.", valueName: "size"))
    var memoryCache = ByteCount(bytes: 64 << 20)

    @Option(
        help: ArgumentHelp(
            "Decoded photos kept for their next widths (a page's srcset), e.g. 32M; 0 keeps none.",
            valueName: "size"))
    var decodedPhotos = ByteCount(bytes: 32 << 20)

    @Option(help: "Largest width accepted.")
    var maxWidth = 4096

    @Option(name: .customLong("workers"), help: "Threads doing pixel work (default: the number of cores).")
    var workersOption: Int?

    /// `--workers`, or the number of cores.
    var workers: Int { workersOption ?? ProcessInfo.processInfo.activeProcessorCount }

    @Option(help: "Requests that may wait for a worker; more are refused with 503 and Retry-After.")
    var queue = 64

    @Option(help: "Cache-Control max-age of thumbnails, in seconds.")
    var maxAge = 86_400

    @Option(
        help: ArgumentHelp("Require URLs signed with the key in this file (see `cardrender sign`).", valueName: "file"))
    var signingKeyFile: String?

    @Option(
        help: ArgumentHelp(
            "Seconds a connection may take to send a whole request head (from its opening or its last response); also the keep-alive idle limit.",
            valueName: "seconds"))
    var idleTimeout = 15

    @Option(help: "Most connections open at once; more wait until one closes.")
    var maxConnections = 1024

    @Option(
        help:
            "Pixel path: auto (libjpeg-turbo and SIMD kernels for the JPEGs that allow it, libvips for the rest) or general (libvips for every image)."
    )
    var engine: RenderEngine = .auto

    @Option(help: "Log level: info logs one line per request; notice or warning only problems.")
    var logLevel: Logger.Level = .info

    @OptionGroup var decode: DecodeOptions

    @OptionGroup(title: "Thumbnails for web pages") var web: WebThumbnailOptions

    func validate() throws {
        guard root != nil || postcards.isOn else {
            throw ValidationError("Give --root (thumbnails), --data (the postcard service), or both.")
        }
        if let root, root.hasPrefix("s3://") {
            guard root.count > "s3://".count, !root.dropFirst("s3://".count).hasPrefix("/") else {
                throw ValidationError("--root: expected s3://BUCKET or s3://BUCKET/PREFIX; received '\(root)'.")
            }
            guard CacheOptions.client() != nil else {
                throw ValidationError(
                    "--root \(root): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (credentials are never taken on the command line)."
                )
            }
        }
        guard !caching.noCache else {
            throw ValidationError("serve always keeps a cache; --no-cache is for render and thumb.")
        }
        guard (1...65535).contains(port) || port == 0 else {
            throw ValidationError("--port must be from 0 to 65535; received \(port).")
        }
        guard (1...16384).contains(maxWidth) else {
            throw ValidationError("--max-width must be from 1 to 16384; received \(maxWidth).")
        }
        guard workers >= 1 else { throw ValidationError("--workers must be at least 1; received \(workers).") }
        guard queue >= 0 else { throw ValidationError("--queue must be at least 0; received \(queue).") }
        guard maxAge >= 0 else { throw ValidationError("--max-age must be at least 0; received \(maxAge).") }
        guard (1...3600).contains(idleTimeout) else {
            throw ValidationError("--idle-timeout must be from 1 to 3600 seconds; received \(idleTimeout).")
        }
        if postcards.isOn, node.bodyTimeout >= idleTimeout {
            throw ValidationError(
                "--body-timeout (\(node.bodyTimeout) s) must be shorter than --idle-timeout (\(idleTimeout) s): a silent connection is closed without an answer after the idle timeout."
            )
        }
        guard maxConnections >= 1 else {
            throw ValidationError("--max-connections must be at least 1; received \(maxConnections).")
        }
    }

    func run() async throws {
        // A server lives long: large buffers go back to the system when freed (see the
        // function). With the postcard service on, a preview's 1-2 MB buffers stay in the heap
        // (10.7 instead of 16 ms a preview, issue 39); a thumbnail server keeps issue 20's
        // 1 MiB threshold and glibc's 128 KiB trim, which hold its RSS under misses.
        if postcards.isOn {
            Vips.mapLargeAllocations(from: 4 << 20, keepingFreeTop: 16 << 20)
        } else {
            Vips.mapLargeAllocations(from: 1 << 20, keepingFreeTop: 128 << 10)
        }
        LoggingSystem.bootstrap { [logLevel] label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
        let logger = Logger(label: "cardrender.serve")
        let signingKey: SigningKey?
        do {
            signingKey = try signingKeyFile.map { path throws(SigningKeyError) in try SigningKey(contentsOfFile: path) }
        } catch {
            Console.error("cardrender: \(error)")
            throw ExitCode(64)
        }
        var configuration = ThumbConfiguration(
            root: root, memoryCacheBytes: memoryCache.bytes, maxWidth: maxWidth, workers: workers, queueLimit: queue,
            maxAge: maxAge, signingKey: signingKey, policy: decode.policy, engine: engine,
            bucketClient: root?.hasPrefix("s3://") == true ? CacheOptions.client() : nil)
        configuration.decodedPhotoBytes = decodedPhotos.bytes
        do {
            try web.apply(to: &configuration)
        } catch let error as ValidationError {
            Console.error("cardrender: \(error.message)")
            throw ExitCode(64)
        }
        // Each worker is a core already; more libvips threads per image only compete. With
        // the postcard service on, a preview is one person waiting on one image: libvips gets
        // every core (a 12 MP photo turned by a few degrees, the general executor: 175 ms a
        // preview with one thread, 98 ms with two; benchmarks/RESULTS.md, issue 30).
        Vips.concurrency =
            postcards.isOn
            ? ProcessInfo.processInfo.activeProcessorCount : VipsThreads.perImage(jobs: workers, items: workers)
        do {
            // A shared store that fails is skipped for 30 s, then tried again: a server outlives outages.
            let shared = caching.sharedStore(health: S3Health(recoverAfter: .seconds(30)))
            if let shared, let problem = await shared.probe() {
                logger.warning(
                    "the shared cache \(shared.location) \(problem.isTransient ? "does not answer" : "refuses this server") (\(problem)); serving from the disk cache meanwhile"
                )
            }
            let store = try ContentStore(
                directory: caching.directory, maxBytes: caching.cacheMaxSize.bytes, shared: shared
            ) {
                [logger] in logger.warning("\($0)")
            }
            let postcardService = try await node.open(
                postcards, decode: decode.policy, engine: engine, workers: workers, logger: logger)
            let service = try ThumbService(configuration: configuration, cache: store, logger: logger)
            var groups = [ThumbRoutes.group(service, logger: logger)]
            if let postcardService {
                groups.append(try PostcardRoutes.group(postcardService, limits: node.limits, logger: logger))
                groups.append(
                    StudioRoutes.group(maxPhotoBytes: postcardService.configuration.settings.policy.maxFileBytes))
            }
            let shell = ShellConfiguration(
                host: host, port: port, idleTimeout: .seconds(idleTimeout), maxConnections: maxConnections)
            do {
                try await ServerApplication.serve(
                    configuration: shell, groups: groups, logger: logger,
                    onRunning: { [host, root, signingKey, postcards] port in
                        if let root {
                            Console.error(
                                "cardrender: serving \(root) on http://\(host):\(port)\(ThumbService.path)/ "
                                    + "(signed URLs \(signingKey == nil ? "off" : "on"))")
                        }
                        if postcards.isOn {
                            Console.error(
                                "cardrender: the postcard service on http://\(host):\(port)\(PostcardRoutes.path)/ (\(postcards.databaseName))"
                            )
                        }
                    },
                    onStopping: { signal in
                        // What the stop waits for.
                        let load = service.pool.load
                        logger.info(
                            "stopping on \(signal): finishing the renders admitted",
                            metadata: ["running": "\(load.busy)", "queued": "\(load.queued)"])
                    })
            } catch {
                await postcardService?.shutdown()
                throw error
            }
            await postcardService?.shutdown()
        } catch let exit as ExitCode {
            throw exit  // said already
        } catch let error as RootDirectoryError {
            Console.error("cardrender: \(error)")
            throw ExitCode(64)
        } catch let error as CacheError {
            Console.error("cardrender: the cache cannot be used: \(error)")
            throw ExitCode(64)
        } catch let error as ServiceDatabaseError {
            Console.error("cardrender: the postcard service cannot start: \(error)")
            throw ExitCode(64)
        } catch {
            Console.error("cardrender: cannot serve: \(error)")
            throw ExitCode(1)
        }
    }
}
