import Metrics
import Prometheus
import Synchronization

/// Every request's count and duration, by route and status, through swift-metrics into a
/// Prometheus registry of the server's own (one per server, so two servers in one process, as
/// in the tests, never mix counts): `cardrender_http_requests_total{route,status}` and
/// `cardrender_http_request_duration_seconds{route}` (histogram). The route groups' own
/// metrics follow them at `/metrics` (`RouteGroup.metrics`).
package final class RequestMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    /// The counters and timers by route and status, made once: making one per request costs
    /// a registry lookup (locks, label sorting) on every request.
    private let made = Mutex<[String: (counter: CoreMetrics.Counter, timer: CoreMetrics.Timer)]>([:])

    package init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10),
        ]
        self.factory = factory
    }

    /// Counts a finished request.
    package func request(route: String, status: Int, duration: Duration) {
        let name = "\(route) \(status)"
        let metrics =
            made.withLock { $0[name] }
            ?? {
                let new = (
                    counter: CoreMetrics.Counter(
                        label: "cardrender_http_requests_total",
                        dimensions: [("route", route), ("status", String(status))], factory: factory),
                    timer: CoreMetrics.Timer(
                        label: "cardrender_http_request_duration_seconds", dimensions: [("route", route)],
                        factory: factory)
                )
                made.withLock { $0[name] = new }
                return new
            }()
        metrics.counter.increment()
        metrics.timer.recordNanoseconds(duration.nanoseconds)
    }

    /// The Prometheus text exposition.
    package func exposition() -> String { registry.emitToString() }
}

extension Duration {
    /// The duration in whole nanoseconds.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
