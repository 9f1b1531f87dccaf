import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import RenderCache
import ServiceLifecycle

/// Builds the thumbnail server: `cardrender serve` runs it, the tests run it on 127.0.0.1.
public enum ThumbServerApplication {
    /// The application for `configuration`, with its service (for metrics and tests).
    ///
    /// It changes no process-wide setting: the caller starts libvips (`Vips.start`) and
    /// chooses its threads per image (`Vips.concurrency`; `cardrender serve` gives each
    /// worker its share of the cores).
    /// - Parameters:
    ///   - configuration: the settings.
    ///   - cache: the cache thumbnails are kept in.
    ///   - logger: where request lines and errors go.
    ///   - api: the postcard service's responder for `/v1/…` (`PostcardServiceApplication`), if on.
    ///   - services: run beside the server (the postcard service's queue).
    ///   - moreMetrics: more of `/metrics` (the postcard service's), printed after the server's.
    ///   - onRunning: called once the socket listens, with the port (useful with port 0).
    /// - Throws: `RootDirectoryError` when the root cannot be served.
    public static func build(
        configuration: ServerConfiguration,
        cache: ContentStore,
        logger: Logger,
        api: (any HTTPResponder<ServerRequestContext>)? = nil,
        services: [any Service] = [],
        moreMetrics: [@Sendable () async -> String] = [],
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> (application: some ApplicationProtocol, service: ThumbService) {
        let service = try ThumbService(configuration: configuration, cache: cache, logger: logger)
        let accessLog = AccessLog(logger: logger, metrics: service.metrics)
        let responder = ThumbResponder(service: service, accessLog: accessLog, api: api, moreMetrics: moreMetrics)
        let maintenance = CacheMaintenance(
            cache: service.cache, pool: service.pool, interval: .seconds(600), logger: logger)
        let application = Application(
            responder: responder,
            server: HTTPServerBuilder { responder in
                ThumbHTTP1Channel(
                    responder: responder, idleTimeout: .nanoseconds(configuration.idleTimeout.nanoseconds),
                    service: service, accessLog: accessLog)
            },
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: nil,
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections, logger: logger)),
            services: [service.pool, maintenance] + services,
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger
        )
        return (application, service)
    }
}
