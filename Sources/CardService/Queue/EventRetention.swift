import Logging
import ServiceLifecycle

/// Purges what the service keeps only for a while: events older than `keepEvents`, their
/// deliveries, and the deliveries finished before then (`OrderBook.purge`), at start and every
/// hour, on every node (each purge is a few bounded deletes; two nodes purging at once delete
/// each row once).
public struct EventRetention: Service {
    let service: PostcardService
    /// How long between purges.
    let every: Duration

    public init(service: PostcardService, every: Duration = .seconds(3600)) {
        self.service = service
        self.every = every
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await purgeOnce()
                try? await Task.sleep(for: every)
            }
        }
    }

    /// One purge of what is older than the service's `keepEvents`.
    func purgeOnce() async {
        let cutoff = ServiceClock.milliseconds() - service.configuration.keepEvents.milliseconds
        do {
            let purged = try await service.book.purge(before: cutoff)
            if purged.events > 0 || purged.deliveries > 0 {
                service.logger.info(
                    "retention: purged \(purged.events) events and \(purged.deliveries) deliveries older than \(service.configuration.keepEvents.components.seconds / 86_400) days"
                )
            }
        } catch {
            service.logger.warning("retention: the database cannot be purged now (\(error)); tried again later")
        }
    }
}
