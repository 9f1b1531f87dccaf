import Logging
import ServiceLifecycle

/// Purges what the service keeps only for a while: events older than `keepEvents` with their
/// deliveries, and the deliveries finished (delivered or given up) more than a day ago
/// (`OrderBook.purge`), at start and every hour, on every node (each purge is a few bounded deletes; two nodes purging at once delete
/// each row once).
public struct EventRetention: Service {
    let service: PostcardService
    /// How long between purges.
    let every: Duration

    /// The purges of `service`'s database, one every `every`.
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

    /// One purge: events older than the service's `keepEvents`, deliveries finished more than
    /// a day ago (or `keepEvents`, when shorter).
    func purgeOnce() async {
        let keep = service.configuration.keepEvents.milliseconds
        let now = ServiceClock.milliseconds()
        do {
            let purged = try await service.book.purge(before: now - keep, finishedBefore: now - min(keep, 86_400_000))
            if purged.events > 0 || purged.deliveries > 0 {
                let age = keep % 86_400_000 == 0 ? "\(keep / 86_400_000) days" : "\(keep / 3_600_000) hours"
                service.logger.info(
                    "retention: purged \(purged.events) events older than \(age) and \(purged.deliveries) deliveries")
            }
        } catch {
            service.logger.warning("retention: the database cannot be purged now (\(error)); tried again later")
        }
    }
}
