import Metrics
import PhotoSources
import Prometheus
import Synchronization

/// The thumbnail routes' metrics, through swift-metrics into a Prometheus registry of their
/// own (one per server, so two servers in one process, as in the tests, never mix counts).
///
/// Exposed at `/metrics`, after the requests' (`RequestMetrics` in the server's shell):
/// - `cardrender_cache_hits_total{layer="memory"|"disk"|"tag"}` (tag: a 304 decided from the
///   cache key without reading an entry), `cardrender_cache_misses_total`;
/// - `cardrender_renders_total` (thumbnails rendered by libvips) and
///   `cardrender_render_joins_total` (requests that waited for a render already running);
/// - `cardrender_queue_depth`, `cardrender_workers_busy`, `cardrender_memory_cache_bytes`;
/// - `cardrender_decoded_photo_reuses_total` (thumbnails made from a kept decode) and
///   `cardrender_decoded_photos_bytes` (`DecodedPhotos`, `--decoded-photos`);
/// - `cardrender_source_fetches_total` (photos downloaded from an `s3://` root).
public final class ThumbMetrics: Sendable {
    /// The registry `/metrics` prints.
    public let registry: PrometheusCollectorRegistry
    private let memoryHits: CoreMetrics.Counter
    private let diskHits: CoreMetrics.Counter
    private let tagHits: CoreMetrics.Counter
    private let misses: CoreMetrics.Counter
    private let renders: CoreMetrics.Counter
    private let joins: CoreMetrics.Counter
    private let queueDepth: CoreMetrics.Gauge
    private let workersBusy: CoreMetrics.Gauge
    private let memoryBytes: CoreMetrics.Gauge
    private let sourceFetches: CoreMetrics.Counter
    private let decodedReuses: CoreMetrics.Counter
    private let fileSends: CoreMetrics.Counter
    private let fallbacks: CoreMetrics.Counter
    private let decodedBytes: CoreMetrics.Gauge
    /// `DecodedPhotos.hits` when `/metrics` was last read: the counter grows by the difference.
    private let decodedReusesSeen = Mutex(0)

    public init() {
        registry = PrometheusCollectorRegistry()
        let factory = PrometheusMetricsFactory(registry: registry)
        memoryHits = CoreMetrics.Counter(
            label: "cardrender_cache_hits_total", dimensions: [("layer", "memory")], factory: factory)
        diskHits = CoreMetrics.Counter(
            label: "cardrender_cache_hits_total", dimensions: [("layer", "disk")], factory: factory)
        tagHits = CoreMetrics.Counter(
            label: "cardrender_cache_hits_total", dimensions: [("layer", "tag")], factory: factory)
        misses = CoreMetrics.Counter(label: "cardrender_cache_misses_total", factory: factory)
        renders = CoreMetrics.Counter(label: "cardrender_renders_total", factory: factory)
        sourceFetches = CoreMetrics.Counter(label: "cardrender_source_fetches_total", factory: factory)
        joins = CoreMetrics.Counter(label: "cardrender_render_joins_total", factory: factory)
        queueDepth = CoreMetrics.Gauge(label: "cardrender_queue_depth", factory: factory)
        workersBusy = CoreMetrics.Gauge(label: "cardrender_workers_busy", factory: factory)
        memoryBytes = CoreMetrics.Gauge(label: "cardrender_memory_cache_bytes", factory: factory)
        decodedReuses = CoreMetrics.Counter(label: "cardrender_decoded_photo_reuses_total", factory: factory)
        fileSends = CoreMetrics.Counter(label: "cardrender_cache_file_sends_total", factory: factory)
        fallbacks = CoreMetrics.Counter(label: "cardrender_fallback_images_total", factory: factory)
        decodedBytes = CoreMetrics.Gauge(label: "cardrender_decoded_photos_bytes", factory: factory)
    }

    /// Where a thumbnail came from.
    enum Source: String, Sendable {
        /// A 304 decided from the cache key, no entry read (`X-Cache: tag`).
        case tag
        case memory, disk, rendered, joined
    }

    /// Counts how a thumbnail was obtained.
    /// Counts one disk hit sent from the entry's file.
    func sentFromFile() {
        fileSends.increment()
    }

    /// Counts one `--fallback-image` sent for a photo that failed (the failure itself is
    /// counted by its status, as every request is).
    func fallbackSent() {
        fallbacks.increment()
    }

    /// Counts one photo downloaded from an `s3://` root.
    func sourceFetched() {
        sourceFetches.increment()
    }

    func thumbnail(from source: Source) {
        switch source {
        case .tag: tagHits.increment()
        case .memory: memoryHits.increment()
        case .disk: diskHits.increment()
        case .rendered:
            misses.increment()
            renders.increment()
        case .joined: joins.increment()
        }
    }

    /// The Prometheus text exposition, with the gauges read now.
    func exposition(load: WorkPool.Load, memoryCacheBytes: Int, decodedPhotos: DecodedPhotos) -> String {
        queueDepth.record(load.queued)
        workersBusy.record(load.busy)
        memoryBytes.record(memoryCacheBytes)
        decodedBytes.record(decodedPhotos.bytes)
        let reuses = decodedPhotos.hits
        let added = decodedReusesSeen.withLock { seen in
            defer { seen = max(seen, reuses) }
            return max(0, reuses - seen)
        }
        if added > 0 { decodedReuses.increment(by: added) }
        return registry.emitToString()
    }
}
