import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

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
                    groups: groups, accessLog: accessLog, lingering: configuration.lingering)
            },
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: nil,
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.maxConnections, logger: logger)),
            services: groups.flatMap(\.services),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger
        )
    }

    /// The signals that stop a server gracefully: it stops accepting, finishes what it admitted
    /// (the groups' services drain), then returns.
    public static let stopSignals: [UnixSignal] = [.sigterm, .sigint]

    /// Builds the application and runs it until SIGTERM or SIGINT has stopped it gracefully.
    ///
    /// The shell owns the signals: `onStopping` hears which one began the stop (to say what is
    /// still running), once, while the groups' services drain.
    /// - Parameters:
    ///   - configuration: the socket and its connections.
    ///   - groups: the routes, each at its path.
    ///   - logger: where request lines and errors go.
    ///   - onRunning: called once the socket listens, with the port.
    ///   - onStopping: called once when a stop signal arrives, with its name.
    public static func serve(
        configuration: ShellConfiguration, groups: [RouteGroup], logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in },
        onStopping: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws {
        let (listening, nowListening) = AsyncStream.makeStream(of: Void.self)
        let application = build(configuration: configuration, groups: groups, logger: logger) { port in
            nowListening.finish()
            await onRunning(port)
        }
        // ServiceLifecycle acts on the signal; this second listener (Dispatch delivers a signal
        // to every source) only reports it. It listens once the server does, when
        // ServiceLifecycle already traps the signals, so it never turns a signal's default
        // action off on its own.
        let notice = Task {
            for await _ in listening {}
            for await signal in await UnixSignalsSequence(trapping: stopSignals) {
                onStopping("\(signal)")
                break
            }
        }
        defer { notice.cancel() }
        try await application.runService(gracefulShutdownSignals: stopSignals)
    }
}
