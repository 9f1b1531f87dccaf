import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// This node's sender of webhooks: a pool of `senders` that each take the next due delivery
/// in the outbox (the database's `deliveries`, written with their events) under a lease, send
/// it as a Standard Webhooks message, and record the answer: delivered, tried again on the
/// retry schedule, or given up; an endpoint failing for too long is disabled. Every node runs
/// one; the leases keep one delivery of an event in flight at a time, and a card's events
/// reach an endpoint in order. At least once: a node killed after sending but before
/// recording sends that delivery again once its lease runs out.
///
/// Fair between keys: deliveries are claimed with the keys taking turns, and one key's
/// endpoints never hold more than `perOwner` senders (`OrderBook.claimDeliveries`); a sender
/// that finishes takes the next delivery at once, so a slow endpoint holds its own sender
/// only. Each host is looked up on threads of its own, within `lookupTimeout`, and the attempt
/// connects to the address that was checked (`PinnedClients`); an attempt to an endpoint
/// deleted or disabled meanwhile (on any node) is cancelled.
public struct WebhookDispatcher: Service {
    let service: PostcardService
    /// The message body of an event (`{"type", "timestamp", "data"}`), or nil for one that
    /// cannot be shown any more.
    let body: @Sendable (EventRecord) -> Data?

    init(service: PostcardService, body: @escaping @Sendable (EventRecord) -> Data?) {
        self.service = service
        self.body = body
    }

    public func run() async throws {
        let settings = service.configuration.webhooks
        let clients = PinnedClients(timeout: settings.timeout, connectionsPerHost: settings.senders)
        do {
            let node = service.configuration.nodeName
            let freed = try await service.book.recoverDeliveries(node: node)
            if freed > 0 { service.logger.notice("webhooks: \(freed) deliveries node \(node) was sending, sent again") }
        } catch {
            service.logger.warning(
                "webhooks: this node's unfinished deliveries cannot be asked for (\(error)); their leases will run out")
        }
        let senders = Senders(
            dispatcher: self, settings: settings, clients: clients,
            address: WebhookAddress(allowLoopback: settings.allowLoopback))
        await cancelWhenGracefulShutdown {
            await senders.run()
        }
        await clients.shutdown()
    }

    /// What one attempt came to.
    enum Outcome: Sendable {
        case delivered
        case failed(String)
        /// Cut short by this node stopping: not an attempt of the endpoint's.
        case interrupted
        /// Cut short because its endpoint was deleted or disabled meanwhile.
        case abandoned
    }

    /// The pool of senders and what they share.
    private struct Senders: Sendable {
        let dispatcher: WebhookDispatcher
        let settings: WebhookSettings
        let clients: PinnedClients
        let address: WebhookAddress
        let inFlight = AttemptsInFlight()
        let wakeup = Wakeup()
        let delivered = DeliveredBatch()

        var service: PostcardService { dispatcher.service }

        /// Claims while senders are free, each delivery sent by a task of its own; waits for a
        /// sender to finish or for the idle poll.
        func run() async {
            await withDiscardingTaskGroup { group in
                group.addTask { await watchEndpoints() }
                group.addTask { await recordDelivered() }
                // Which key's turn a claim starts with.
                var turn = 0
                while !Task.isCancelled {
                    let free = settings.senders - inFlight.count
                    var claimed: [OrderBook.Delivery] = []
                    if free > 0 {
                        do {
                            claimed = try await service.book.claimDeliveries(
                                limit: free, perOwner: settings.perOwner, perEndpoint: settings.perEndpoint,
                                leaseMilliseconds: settings.lease.milliseconds, node: service.configuration.nodeName,
                                rotation: turn)
                            turn &+= 1
                        } catch {
                            service.logger.warning("webhooks: the database cannot be asked for deliveries (\(error))")
                        }
                    }
                    for delivery in claimed {
                        let key = delivery.event.id + " " + delivery.endpoint.id
                        let attempt = Task { await send(delivery) }
                        inFlight.add(key, endpoint: delivery.endpoint.id) { attempt.cancel() }
                        group.addTask {
                            let outcome = await withTaskCancellationHandler {
                                await attempt.value
                            } onCancel: {
                                attempt.cancel()
                            }
                            let abandoned = inFlight.remove(key)
                            await record(delivery, outcome: abandoned ? .abandoned : outcome)
                            wakeup.signal()
                        }
                    }
                    // Claimed as many as were free: wait for a sender; found nothing: the idle poll.
                    if claimed.isEmpty || claimed.count == free { await wakeup.wait(upTo: settings.idlePoll) }
                }
            }
            // What was delivered before the stop is recorded as such.
            await flushDelivered()
        }

        /// Records the delivered deliveries together: once one has arrived, when 8 wait or 5 ms
        /// later. Asleep while nothing is delivered.
        private func recordDelivered() async {
            while !Task.isCancelled {
                await delivered.arrived.wait(upTo: .seconds(60))
                await delivered.filled.wait(upTo: .milliseconds(5))
                await flushDelivered()
            }
        }

        private func flushDelivered() async {
            let batch = delivered.take()
            guard !batch.isEmpty else { return }
            do {
                try await service.book.delivered(batch)
                service.metrics.webhook("delivered", count: batch.count)
            } catch {
                service.logger.warning(
                    "webhooks: \(batch.count) deliveries cannot be recorded as delivered (\(error)); their leases will run out and they will be sent again"
                )
            }
            // Their senders' places, and their cards' next events, are free now.
            wakeup.signal()
        }

        /// Every `cancelPoll`, cancels the attempts whose endpoint was deleted or disabled.
        private func watchEndpoints() async {
            while !Task.isCancelled {
                try? await Task.sleep(for: settings.cancelPoll)
                let asked = inFlight.endpoints
                guard !asked.isEmpty, let enabled = try? await service.book.enabledEndpoints(asked) else { continue }
                let cancelled = inFlight.abandon(asked: asked, enabled: enabled)
                if cancelled > 0 {
                    service.logger.notice(
                        "webhooks: \(cancelled) attempts cancelled, their endpoints deleted or disabled")
                }
            }
        }

        /// Records one outcome: delivered, failed (tried again later, or given up), or given
        /// back uncounted (this node stopping, or its endpoint gone).
        private func record(_ delivery: OrderBook.Delivery, outcome: Outcome) async {
            do {
                switch outcome {
                case .delivered:
                    delivered.add(delivery)
                case .interrupted, .abandoned:
                    try await service.book.release(delivery)
                case .failed(let error):
                    let attempt = delivery.attempts + 1
                    let retry = attempt <= settings.retries.count ? settings.retries[attempt - 1].milliseconds : nil
                    service.metrics.webhook(retry == nil ? "given_up" : "retried")
                    let next = retry.map { "again in \($0 / 1000) s" } ?? "given up"
                    service.logger.notice(
                        "webhook \(delivery.event.id) to \(delivery.endpoint.id): attempt \(attempt) failed: \(error); \(next)"
                    )
                    if let disabled = try await service.book.failed(
                        delivery, error: error, retryAfter: retry, disableAfter: settings.disableAfter.milliseconds)
                    {
                        service.logger.warning(
                            "webhook endpoint \(disabled.id): disabled, every delivery failed for longer than allowed")
                    }
                }
            } catch {
                service.logger.warning(
                    "webhook \(delivery.event.id) to \(delivery.endpoint.id): its outcome cannot be recorded (\(error)); its lease will run out"
                )
            }
        }

        /// Sends one delivery: its host looked up (`HostLookups`: within `lookupTimeout`, on
        /// threads of their own), then the attempt to the address checked, the whole of it (connecting, the
        /// answer's head and the part of its body read) within `timeout`.
        private func send(_ delivery: OrderBook.Delivery) async -> Outcome {
            guard let body = dispatcher.body(delivery.event) else {
                return .failed("the event \(delivery.event.id) cannot be shown")
            }
            let url = delivery.endpoint.url
            let pinned: WebhookAddress.Pinned
            do {
                pinned = try await service.hostLookups.pinned(url, owner: delivery.endpoint.owner, address: address)
            } catch {
                return Task.isCancelled ? .interrupted : .failed(error.reason)
            }
            let timestamp = ServiceClock.milliseconds() / 1000
            var prepared = HTTPClientRequest(url: url)
            prepared.method = .POST
            prepared.headers.add(name: "Content-Type", value: "application/json")
            prepared.headers.add(name: "User-Agent", value: "cardrender-webhooks")
            prepared.headers.add(name: "webhook-id", value: delivery.event.id)
            prepared.headers.add(name: "webhook-timestamp", value: String(timestamp))
            prepared.headers.add(
                name: "webhook-signature",
                value: WebhookSignature.header(
                    id: delivery.event.id, timestamp: timestamp, body: body,
                    secrets: delivery.endpoint.signingSecrets(at: timestamp * 1000)))
            prepared.body = .bytes(ByteBuffer(bytes: body))
            let (limit, timeout) = (settings.maxResponseBytes, settings.timeout)
            let request = prepared
            let answer = await WebhookDispatcher.bounded(timeout) { () async throws -> Outcome in
                try await clients.with(pinned) { client in
                    let response = try await client.execute(request, timeout: .init(timeout))
                    // The answer's body is read up to a bound, and no further.
                    var read = 0
                    var start = ""
                    for try await chunk in response.body {
                        if start.count < 200 { start += String(buffer: chunk).prefix(200 - start.count) }
                        read += chunk.readableBytes
                        if read >= limit { break }
                    }
                    guard (200..<300).contains(response.status.code) else {
                        // The receiver's words, escaped: they go into a log line and the table.
                        return .failed(
                            "answered \(response.status.code)" + (start.isEmpty ? "" : ": \(LogText.escaped(start))"))
                    }
                    return .delivered
                }
            }
            if Task.isCancelled { return .interrupted }
            switch answer {
            case .success(let outcome): return outcome
            case .failure(let error): return .failed(LogText.escaped("\(error)"))
            case nil: return .failed("no answer within \(timeout)")
            }
        }
    }

    /// What `work` came to, or nil when it did not finish within `limit` (it is then cancelled).
    static func bounded<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async throws -> T) async
        -> Result<T, any Error>?
    {
        await withTaskGroup(of: Result<T, any Error>?.self) { group in
            group.addTask {
                do { return .success(try await work()) } catch { return .failure(error) }
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
