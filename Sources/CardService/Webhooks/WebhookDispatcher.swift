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

    /// What one attempt came to.
    enum Outcome: Sendable {
        case delivered
        case failed(String)
        /// Cut short by this node stopping: not an attempt of the endpoint's.
        case interrupted
    }

    private func sendLoop(client: HTTPClient, settings: WebhookSettings) async {
        let address = WebhookAddress(allowLoopback: settings.allowLoopback)
        while !Task.isCancelled {
            do {
                let claimed = try await service.book.claimDeliveries(
                    limit: settings.batch, leaseMilliseconds: settings.lease.milliseconds,
                    node: service.configuration.nodeName)
                if !claimed.isEmpty {
                    // Each endpoint's name looked up once a batch (it may point elsewhere now),
                    // then every delivery sent at once, each bounded by the attempt's timeout.
                    var refusals: [String: String?] = [:]
                    for url in Set(claimed.map(\.endpoint.url)) {
                        switch await Self.bounded(
                            settings.timeout,
                            {
                                try await NIOThreadPool.singleton.runIfActive { address.refusal(url) }
                            })
                        {
                        case .success(let refusal): refusals[url] = .some(refusal)
                        case .failure(let error): refusals[url] = "url cannot be checked now (\(error))"
                        case nil: refusals[url] = "url's host could not be looked up within \(settings.timeout)"
                        }
                    }
                    let outcomes = await withTaskGroup(of: (OrderBook.Delivery, Outcome).self) { group in
                        for delivery in claimed {
                            let refusal = refusals[delivery.endpoint.url] ?? nil
                            group.addTask {
                                if let refusal { return (delivery, .failed(refusal)) }
                                return (delivery, await send(delivery, client: client, settings: settings))
                            }
                        }
                        var outcomes: [(OrderBook.Delivery, Outcome)] = []
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

    /// Records each outcome: delivered, failed (tried again later, or given up), or given back
    /// uncounted when this node is stopping.
    private func record(_ outcomes: [(OrderBook.Delivery, Outcome)], settings: WebhookSettings) async throws {
        let delivered = outcomes.compactMap { if case .delivered = $0.1 { $0.0 } else { nil } }
        try await service.book.delivered(delivered)
        service.metrics.webhook("delivered", count: delivered.count)
        for (delivery, outcome) in outcomes {
            switch outcome {
            case .delivered:
                continue
            case .interrupted:
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
        }
    }

    /// Sends one delivery, the whole attempt (connecting, the answer's head and the part of its
    /// body read) bounded by the timeout.
    private func send(_ delivery: OrderBook.Delivery, client: HTTPClient, settings: WebhookSettings) async
        -> Outcome
    {
        guard let body = body(delivery.event) else { return .failed("the event \(delivery.event.id) cannot be shown") }
        let timestamp = ServiceClock.milliseconds() / 1000
        var prepared = HTTPClientRequest(url: delivery.endpoint.url)
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
        let limit = settings.maxResponseBytes
        let request = prepared
        let answer = await Self.bounded(settings.timeout) { () async throws -> Outcome in
            let response = try await client.execute(request, timeout: .init(settings.timeout))
            // The answer's body is read up to a bound, and no further.
            var read = 0
            var start = ""
            for try await chunk in response.body {
                if start.count < 200 { start += String(buffer: chunk).prefix(200 - start.count) }
                read += chunk.readableBytes
                if read >= limit { break }
            }
            guard (200..<300).contains(response.status.code) else {
                return .failed("answered \(response.status.code)" + (start.isEmpty ? "" : ": \(start)"))
            }
            return .delivered
        }
        if Task.isCancelled { return .interrupted }
        switch answer {
        case .success(let outcome): return outcome
        case .failure(let error): return .failed("\(error)")
        case nil: return .failed("no answer within \(settings.timeout)")
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
