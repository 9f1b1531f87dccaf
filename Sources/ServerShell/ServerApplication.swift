import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// The one place the HTTP server is put together: `cardrender serve` runs it, the tests run it
/// on 127.0.0.1. The shell owns the socket and its connections (limits, idle timeout, the
/// request checks, answers on the event loop), the access log, `/healthz` and `/metrics`; the
/// routes are the groups mounted in it.
public enum ServerApplication {
    /// The application serving `groups` on `configuration`'s socket.
    ///
    /// It changes no process-wide setting.
    /// - Parameters:
    ///   - configuration: the socket and its connections.
    ///   - groups: the routes, each at its path (`ThumbRoutes`, `PostcardRoutes`, `StudioRoutes`).
    ///   - logger: where request lines and errors go.
    ///   - onRunning: called once the socket listens, with the port (useful with port 0).
    public static func build(
        configuration: ShellConfiguration, groups: [RouteGroup], logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let metrics = RequestMetrics()
        let accessLog = AccessLog(logger: logger, metrics: metrics)
        let responder = ServerResponder(groups: groups, metrics: metrics, accessLog: accessLog)
        return Application(
            responder: responder,
            server: HTTPServerBuilder { responder in
                ServerChannel(
                    responder: responder, idleTimeout: .nanoseconds(configuration.idleTimeout.nanoseconds),
                    groups: groups, accessLog: accessLog)
            },
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: nil,
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections, logger: logger)),
            services: groups.flatMap(\.services),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger
        )
    }
}
