import Logging
import RenderCache
import ServiceLifecycle

/// Keeps the disk cache within its size bound while the server runs: a collection at start,
/// then every `interval`, on a worker thread; the statistics are flushed at shutdown.
struct CacheMaintenance: Service {
    let cache: ContentStore
    let pool: WorkPool
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while true {
            let cache = self.cache
            if let collection = try? await pool.run({ cache.collectGarbage() }), collection.removed > 0 {
                logger.info(
                    "cache collected",
                    metadata: ["removed": "\(collection.removed)", "bytes_left": "\(collection.bytes)"])
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                break
            }
        }
        cache.flushStatistics()
    }
}
