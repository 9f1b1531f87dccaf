import Metrics
import Prometheus
import Synchronization

/// The postcard service's metrics, in a Prometheus registry of its own that `/metrics`
/// prints after the server's (`cardrender serve`):
/// - `cardrender_cards{status}`: this database's cards by status, counted when read (at
///   most every 5 s: `/metrics` needs no key, and counting reads the cards' index);
/// - `cardrender_card_queue_depth`: cards waiting to be rendered (queued, or rendering
///   under a lease that ran out);
/// - `cardrender_card_transitions_total{to}`: the changes this node made (`queued`,
///   `rendering` when it claims a card, `ready`, `failed`, `cancelled`, `released` when it
///   puts one back);
/// - `cardrender_card_lease_takeovers_total`: cards this node took over from a node whose
///   lease ran out;
/// - `cardrender_preview_duration_seconds` (histogram): previews, from the checked spec to
///   the JPEG;
/// - `cardrender_scan_duration_seconds` (histogram): scans' code searches, from the photo's
///   bytes to the checked code (`POST /v1/scans`);
/// - `cardrender_auth_failures_total`, `cardrender_auth_throttled_total`: requests with no
///   valid key, and those refused because their address sent too many of them;
/// - `cardrender_request_body_errors_total{reason}`: bodies refused as `too_large`,
///   `malformed`, `stalled`, `too_slow` or `disconnected`;
/// - `cardrender_uploads_busy_total`: uploads, scans and other bodies refused (503) because no
///   slot to read them came free in time;
/// - `cardrender_workers_busy_total`: previews, placements, uploads' checks and scans refused
///   (503) because no preview thread came free in time;
/// - `cardrender_scans_throttled_total`: scans refused (429) because their key spent its CPU
///   budget.
public final class PostcardMetrics: Sendable {
    /// The registry `exposition` prints.
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let takeovers: CoreMetrics.Counter
    private let previews: CoreMetrics.Timer
    private let scans: CoreMetrics.Timer
    private let authFailures: CoreMetrics.Counter
    private let throttled: CoreMetrics.Counter
    private let busy: CoreMetrics.Counter
    private let workersWaitedTooLong: CoreMetrics.Counter
    private let scanThrottles: CoreMetrics.Counter
    private let depth: CoreMetrics.Gauge
    /// When the cards were last counted.
    private let counted = Mutex<ContinuousClock.Instant?>(nil)
    /// Counters and gauges with a label, made once each.
    private let labelled = Mutex<[String: any Sendable]>([:])

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(5), .milliseconds(10), .milliseconds(15), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5),
        ]
        self.factory = factory
        takeovers = CoreMetrics.Counter(label: "cardrender_card_lease_takeovers_total", factory: factory)
        previews = CoreMetrics.Timer(label: "cardrender_preview_duration_seconds", factory: factory)
        scans = CoreMetrics.Timer(label: "cardrender_scan_duration_seconds", factory: factory)
        authFailures = CoreMetrics.Counter(label: "cardrender_auth_failures_total", factory: factory)
        throttled = CoreMetrics.Counter(label: "cardrender_auth_throttled_total", factory: factory)
        busy = CoreMetrics.Counter(label: "cardrender_uploads_busy_total", factory: factory)
        workersWaitedTooLong = CoreMetrics.Counter(label: "cardrender_workers_busy_total", factory: factory)
        scanThrottles = CoreMetrics.Counter(label: "cardrender_scans_throttled_total", factory: factory)
        depth = CoreMetrics.Gauge(label: "cardrender_card_queue_depth", factory: factory)
    }

    func transition(to status: String, count: Int = 1) {
        counter("cardrender_card_transitions_total", ("to", status)).increment(by: Int64(count))
    }

    func leaseTakenOver() { takeovers.increment() }

    func preview(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        previews.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    func scan(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        scans.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// A webhook attempt's outcome on this node: `delivered`, `retried` or `given_up`.
    func webhook(_ outcome: String, count: Int = 1) {
        guard count > 0 else { return }
        counter("cardrender_webhook_deliveries_total", ("outcome", outcome)).increment(by: count)
    }

    func authFailed() { authFailures.increment() }

    func authThrottled() { throttled.increment() }

    func uploadsBusy() { busy.increment() }

    func workersBusy() { workersWaitedTooLong.increment() }

    func scanThrottled() { scanThrottles.increment() }

    func bodyRefused(_ reason: String) {
        counter("cardrender_request_body_errors_total", ("reason", reason)).increment()
    }

    /// The text exposition, with the cards by status read from `book` (at most every 5 s).
    func exposition(book: OrderBook) async -> String {
        let due = counted.withLock { last in
            guard last.map({ ContinuousClock.now - $0 > .seconds(5) }) ?? true else { return false }
            last = .now
            return true
        }
        if due, let counts = try? await book.statusCounts() {
            for status in CardRecord.Status.allCases {
                gauge("cardrender_cards", ("status", status.rawValue)).record(counts.byStatus[status.rawValue] ?? 0)
            }
            depth.record(counts.waiting)
        }
        return registry.emitToString()
    }

    private func counter(_ label: String, _ dimension: (String, String)) -> CoreMetrics.Counter {
        made(label, dimension) { CoreMetrics.Counter(label: label, dimensions: [dimension], factory: factory) }
    }

    private func gauge(_ label: String, _ dimension: (String, String)) -> CoreMetrics.Gauge {
        made(label, dimension) { CoreMetrics.Gauge(label: label, dimensions: [dimension], factory: factory) }
    }

    /// The metric `label` with `dimension`, made on first use and kept.
    private func made<Metric: Sendable>(
        _ label: String, _ dimension: (String, String), _ make: () -> Metric
    ) -> Metric {
        labelled.withLock { made in
            let name = "\(label) \(dimension.0)=\(dimension.1)"
            if let metric = made[name] as? Metric { return metric }
            let metric = make()
            made[name] = metric
            return metric
        }
    }
}
