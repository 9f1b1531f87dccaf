import Logging
import ServiceLifecycle

/// This node's renderers of the durable queue: each claims the oldest queued card (or one
/// whose node died: its lease ran out) in the database, renders it into the store and
/// records the result. Any number of nodes share one queue (PostgreSQL); a card is claimed
/// by one at a time and becomes `ready` once.
public struct CardQueue: Service {
    let service: PostcardService
    /// How long an idle renderer waits before asking the database again.
    let idlePoll: Duration

    public init(service: PostcardService, idlePoll: Duration = .milliseconds(100)) {
        self.service = service
        self.idlePoll = idlePoll
    }

    public func run() async throws {
        let lease = service.configuration.lease
        let milliseconds =
            Int(lease.components.seconds) * 1000 + Int(lease.components.attoseconds / 1_000_000_000_000_000)
        do {
            let node = service.configuration.nodeName
            for id in try await service.book.recover(node: node) {
                service.logger.notice("card \(id): put back in the queue: node \(node) stopped while rendering it")
                service.metrics.transition(to: "released")
            }
        } catch {
            service.logger.warning(
                "queue: this node's unfinished cards cannot be asked for (\(error)); their leases will run out")
        }
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                for _ in 0..<max(1, service.configuration.renderThreads) {
                    group.addTask { await renderLoop(leaseMilliseconds: milliseconds) }
                }
            }
        }
    }

    private func renderLoop(leaseMilliseconds: Int) async {
        while !Task.isCancelled {
            do {
                let node = service.configuration.nodeName
                let result = try await service.book.claim(leaseMilliseconds: leaseMilliseconds, node: node)
                for (id, error) in result.failed {
                    service.logger.error("card \(id): failed: \(error)")
                    service.metrics.transition(to: "failed")
                }
                if let claim = result.claim {
                    if let previous = claim.takenOverFrom {
                        service.logger.warning(
                            "card \(claim.card.id): the lease of node \(previous) ran out; taken over by node \(node)"
                        )
                        service.metrics.leaseTakenOver()
                    } else {
                        service.logger.info("card \(claim.card.id): claimed by node \(node)")
                    }
                    service.metrics.transition(to: "rendering")
                    await service.render(claim, leaseMilliseconds: leaseMilliseconds)
                    continue
                }
            } catch {
                service.logger.warning("queue: the database cannot be asked for work (\(error))")
            }
            try? await Task.sleep(for: idlePoll)
        }
    }
}
