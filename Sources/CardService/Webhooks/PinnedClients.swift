import AsyncHTTPClient
import NIOCore
import Synchronization

/// The HTTP clients of webhook attempts, one per host and the address approved for it
/// (`WebhookAddress.Pinned`): each connects to that address (AsyncHTTPClient's `dnsOverride`)
/// while TLS sends and checks the host's name, so the host is never looked up again between
/// the check and the connection. Each client's pool holds as many connections to its host as
/// the dispatcher has senders, so no attempt waits for a connection. Clients idle for a
/// minute are shut down once more than `kept` exist.
final class PinnedClients: Sendable {
    private struct Entry {
        let client: HTTPClient
        var inUse = 0
        var lastUsed = ContinuousClock.now
    }

    private let configuration: HTTPClient.Configuration
    private let entries = Mutex<[String: Entry]>([:])
    /// Clients kept before idle ones are shut down.
    private let kept = 64

    /// - Parameters:
    ///   - timeout: the connection's and each read's bound.
    ///   - connectionsPerHost: the most attempts in flight to one host.
    init(timeout: Duration, connectionsPerHost: Int) {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .init(timeout), read: .init(timeout)),
            connectionPool: .init(
                idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerHost))
        configuration.httpVersion = .http1Only
        self.configuration = configuration
    }

    /// Runs `body` with the client that connects to `pinned`'s address.
    func with<T: Sendable>(_ pinned: WebhookAddress.Pinned, _ body: (HTTPClient) async throws -> T) async rethrows -> T
    {
        let name = pinned.host + " " + pinned.address.text
        let (client, retired) = entries.withLock { entries -> (HTTPClient, [HTTPClient]) in
            if var entry = entries[name] {
                entry.inUse += 1
                entry.lastUsed = .now
                entries[name] = entry
                return (entry.client, [])
            }
            var configuration = self.configuration
            // An address literal in the URL is its own address: nothing to override.
            if WebhookAddress.Address(literal: pinned.host) == nil {
                configuration.dnsOverride = [pinned.host: pinned.address.text]
            }
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            entries[name] = Entry(client: client, inUse: 1)
            var retired: [HTTPClient] = []
            if entries.count > kept {
                let idle = entries.filter {
                    $0.value.inUse == 0 && ContinuousClock.now - $0.value.lastUsed > .seconds(60)
                }
                for (key, entry) in idle {
                    entries[key] = nil
                    retired.append(entry.client)
                }
            }
            return (client, retired)
        }
        for old in retired { Task { try? await old.shutdown() } }
        defer {
            entries.withLock { entries in
                entries[name]?.inUse -= 1
                entries[name]?.lastUsed = .now
            }
        }
        return try await body(client)
    }

    /// Shuts every client down.
    func shutdown() async {
        let clients = entries.withLock { entries in
            defer { entries = [:] }
            return entries.values.map(\.client)
        }
        for client in clients { try? await client.shutdown() }
    }
}
