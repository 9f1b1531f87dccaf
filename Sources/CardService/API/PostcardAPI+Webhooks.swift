import HTTPTypes
import Logging
import NIOPosix

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The webhook endpoints' operations.
extension PostcardAPI {
    func createWebhookEndpoint(_ input: Operations.CreateWebhookEndpoint.Input) async throws
        -> Operations.CreateWebhookEndpoint.Output
    {
        guard case .json(let body) = input.body else {
            throw Problem(.unsupportedMediaType, "Send the endpoint as JSON.")
        }
        let settings = service.configuration.webhooks
        let url: String
        do {
            url = try WebhookURL.normalised(body.url)
        } catch {
            throw Problem(
                .unprocessableContent, error.reason + ".",
                errors: [Problem.FieldError(field: "url", detail: error.reason)])
        }
        let owner = try owner
        do {
            _ = try await service.hostLookups.pinned(
                url, owner: owner, address: WebhookAddress(allowLoopback: settings.allowLoopback))
        } catch {
            throw Problem(
                .unprocessableContent, error.reason + ".",
                errors: [Problem.FieldError(field: "url", detail: error.reason)])
        }
        let types = (body.types ?? []).compactMap { EventRecord.Kind(rawValue: $0.rawValue) }
        let endpoint = WebhookEndpointRecord(
            id: OrderBook.newID("whe"), owner: owner, url: url, types: types,
            description: body.description ?? "", secret: WebhookSignature.newSecret(),
            created: ServiceClock.milliseconds())
        guard try await service.book.addEndpoint(endpoint, limit: settings.maxEndpointsPerKey) else {
            throw Problem(
                .conflict,
                "This API key has \(settings.maxEndpointsPerKey) webhook endpoints, the most a key may have; delete one first."
            )
        }
        service.logger.info("webhook endpoint \(endpoint.id): added for key \(endpoint.owner)")
        return .created(.init(body: .json(Self.endpoint(endpoint, secret: endpoint.secret))))
    }

    func listWebhookEndpoints(_ input: Operations.ListWebhookEndpoints.Input) async throws
        -> Operations.ListWebhookEndpoints.Output
    {
        let endpoints = try await service.book.endpoints(owner: try owner)
        return .ok(
            .init(
                body: .json(
                    Components.Schemas.WebhookEndpointList(endpoints: endpoints.map { Self.endpoint($0, secret: nil) })
                )))
    }

    func getWebhookEndpoint(_ input: Operations.GetWebhookEndpoint.Input) async throws
        -> Operations.GetWebhookEndpoint.Output
    {
        guard let endpoint = try await service.book.endpoint(owner: try owner, id: input.path.id) else {
            throw Problem.notFound("The webhook endpoint \(input.path.id)")
        }
        return .ok(.init(body: .json(Self.endpoint(endpoint, secret: nil))))
    }

    func deleteWebhookEndpoint(_ input: Operations.DeleteWebhookEndpoint.Input) async throws
        -> Operations.DeleteWebhookEndpoint.Output
    {
        guard try await service.book.deleteEndpoint(owner: try owner, id: input.path.id) else {
            throw Problem.notFound("The webhook endpoint \(input.path.id)")
        }
        return .noContent(.init())
    }

    func rotateWebhookSecret(_ input: Operations.RotateWebhookSecret.Input) async throws
        -> Operations.RotateWebhookSecret.Output
    {
        guard
            let endpoint = try await service.book.rotateSecret(
                owner: try owner, id: input.path.id, secret: WebhookSignature.newSecret(),
                overlap: service.configuration.webhooks.secretOverlap.milliseconds)
        else { throw Problem.notFound("The webhook endpoint \(input.path.id)") }
        return .ok(.init(body: .json(Self.endpoint(endpoint, secret: endpoint.secret))))
    }

    func replayWebhooks(_ input: Operations.ReplayWebhooks.Input) async throws -> Operations.ReplayWebhooks.Output {
        guard case .json(let body) = input.body else {
            throw Problem(.unsupportedMediaType, "Send the replay as JSON.")
        }
        let since = Int((body.since.timeIntervalSince1970 * 1000).rounded(.down))
        let every = service.configuration.webhooks.replayEvery
        switch try await service.book.replay(
            owner: try owner, id: input.path.id, since: since, every: every.milliseconds)
        {
        case .notFound:
            throw Problem.notFound("The webhook endpoint \(input.path.id)")
        case .tooSoon(let wait):
            throw Problem.retryLater(
                "The webhook endpoint \(input.path.id) was replayed less than \(every.components.seconds) s ago; retry after \(wait) s.",
                after: wait)
        case .queued(let count):
            return .accepted(.init(body: .json(Components.Schemas.ReplayAnswer(events: count))))
        }
    }

    /// The endpoint as the API shows it, with `secret` when it is to be shown.
    static func endpoint(_ endpoint: WebhookEndpointRecord, secret: String?) -> WebhookEndpointShape {
        WebhookEndpointShape(
            id: endpoint.id, url: endpoint.url, types: endpoint.types.map(\.rawValue),
            description: endpoint.description, created: ServiceClock.rfc3339(endpoint.created),
            disabled: endpoint.disabled.map(ServiceClock.rfc3339), secret: secret)
    }
}
