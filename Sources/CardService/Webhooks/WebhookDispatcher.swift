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

/// This node's sender of webhooks: it claims the deliveries due in the outbox (the database's
/// `deliveries`, written with their events), a batch at a time under a lease, sends each as a
/// Standard Webhooks message, and records the answer: delivered, tried again on the retry
/// schedule, or given up; an endpoint failing for too long is disabled. Every node runs one;
/// the leases keep one delivery of an event in flight at a time, and a card's events reach an
/// endpoint in order. At least once: a node killed after sending but before recording sends
/// that delivery again once its lease runs out.
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
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .init(settings.timeout), read: .init(settings.timeout)))
        configuration.httpVersion = .http1Only
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let node = service.configuration.nodeName
            let freed = try await service.book.recoverDeliveries(node: node)
            if freed > 0 { service.logger.notice("webhooks: \(freed) deliveries node \(node) was sending, sent again") }
        } catch {
            service.logger.warning(
                "webhooks: this node's unfinished deliveries cannot be asked for (\(error)); their leases will run out")
        }
        await cancelWhenGracefulShutdown {
            await sendLoop(client: client, settings: settings)
        }
        try? await client.shutdown()
    }

    private func sendLoop(client: HTTPClient, settings: WebhookSettings) async {
        let address = WebhookAddress(allowLoopback: settings.allowLoopback)
        while !Task.isCancelled {
            do {
                let claimed = try await service.book.claimDeliveries(
                    limit: settings.batch, leaseMilliseconds: settings.lease.milliseconds,
                    node: service.configuration.nodeName)
                if !claimed.isEmpty {
                    let outcomes = await withTaskGroup(of: (OrderBook.Delivery, String?).self) { group in
                        for delivery in claimed {
                            group.addTask {
                                (delivery, await send(delivery, client: client, settings: settings, address: address))
                            }
                        }
                        var outcomes: [(OrderBook.Delivery, String?)] = []
                        for await outcome in group { outcomes.append(outcome) }
                        return outcomes
                    }
                    try await record(outcomes, settings: settings)
                    continue
                }
            } catch {
                service.logger.warning("webhooks: the database cannot be asked for deliveries (\(error))")
            }
            try? await Task.sleep(for: settings.idlePoll)
        }
    }

    /// Records each outcome: delivered (nil), or the error.
    private func record(_ outcomes: [(OrderBook.Delivery, String?)], settings: WebhookSettings) async throws {
        let delivered = outcomes.compactMap { $0.1 == nil ? $0.0 : nil }
        try await service.book.delivered(delivered)
        service.metrics.webhook("delivered", count: delivered.count)
        for (delivery, error) in outcomes {
            guard let error else { continue }
            let attempt = delivery.attempts + 1
            let retry = attempt <= settings.retries.count ? settings.retries[attempt - 1].milliseconds : nil
            service.metrics.webhook(retry == nil ? "given_up" : "retried")
            let next = retry.map { "again in \($0 / 1000) s" } ?? "given up"
            service.logger.notice(
                "webhook \(delivery.event.id) to \(delivery.endpoint.id): attempt \(attempt) failed: \(error); \(next)")
            if let disabled = try await service.book.failed(
                delivery, error: error, retryAfter: retry, disableAfter: settings.disableAfter.milliseconds)
            {
                service.logger.warning(
                    "webhook endpoint \(disabled.id): disabled, every delivery failed for longer than allowed")
            }
        }
    }

    /// Sends one delivery; nil when the endpoint answered 2xx, else why not.
    private func send(
        _ delivery: OrderBook.Delivery, client: HTTPClient, settings: WebhookSettings, address: WebhookAddress
    ) async -> String? {
        guard let body = body(delivery.event) else { return "the event \(delivery.event.id) cannot be shown" }
        // The name is looked up again (it may point elsewhere now), on a thread of its own.
        let url = delivery.endpoint.url
        do {
            if let refusal = try await NIOThreadPool.singleton.runIfActive({ address.refusal(url) }) { return refusal }
        } catch {
            return "url cannot be checked now (\(error))"
        }
        let timestamp = ServiceClock.milliseconds() / 1000
        var request = HTTPClientRequest(url: delivery.endpoint.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "cardrender-webhooks")
        request.headers.add(name: "webhook-id", value: delivery.event.id)
        request.headers.add(name: "webhook-timestamp", value: String(timestamp))
        request.headers.add(
            name: "webhook-signature",
            value: WebhookSignature.header(
                id: delivery.event.id, timestamp: timestamp, body: body,
                secrets: delivery.endpoint.signingSecrets(at: timestamp * 1000)))
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, timeout: .init(settings.timeout))
            // The answer's body is read up to a bound, and no further.
            var read = 0
            var start = ""
            for try await chunk in response.body {
                if start.count < 200 { start += String(buffer: chunk).prefix(200 - start.count) }
                read += chunk.readableBytes
                if read >= settings.maxResponseBytes { break }
            }
            guard (200..<300).contains(response.status.code) else {
                return "answered \(response.status.code)" + (start.isEmpty ? "" : ": \(start)")
            }
            return nil
        } catch {
            return "\(error)"
        }
    }
}
