import Hummingbird
import Logging
import NIOCore
import VipsKit

#if canImport(Glibc)
    import Glibc
#endif

/// Builds the thumbnail server: `cardrender serve` runs it, the tests run it on 127.0.0.1.
public enum ThumbServerApplication {
    /// The application for `configuration`, with its service (for metrics and tests).
    /// - Parameters:
    ///   - configuration: the settings.
    ///   - cacheDirectory: the disk cache directory.
    ///   - logger: where request lines and errors go.
    ///   - onRunning: called once the socket listens, with the port (useful with port 0).
    /// - Throws: `RootDirectoryError` or `CacheError` when the root or the cache cannot be used.
    public static func build(
        configuration: ServerConfiguration,
        cacheDirectory: String,
        logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> (application: some ApplicationProtocol, service: ThumbService) {
        let service = try ThumbService(configuration: configuration, cacheDirectory: cacheDirectory, logger: logger)
        // Each worker is a core already; more libvips threads per image only compete.
        Vips.concurrency = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) / max(1, configuration.workers))
        let responder = ThumbResponder(service: service, accessLog: AccessLog(logger: logger, metrics: service.metrics))
        let maintenance = CacheMaintenance(
            cache: service.cache, pool: service.pool, interval: .seconds(600), logger: logger)
        let application = Application(
            responder: responder,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            services: [service.pool, maintenance],
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger
        )
        return (application, service)
    }
}
