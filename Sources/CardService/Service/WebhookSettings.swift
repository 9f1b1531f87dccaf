/// How the service sends webhooks (docs/service.md, "Webhooks").
public struct WebhookSettings: Sendable {
    /// The waits after each failed attempt: Standard Webhooks' schedule (5 s, 5 min, 30 min,
    /// 2 h, 5 h, 10 h, 10 h): eight attempts over about 28 hours, then the delivery is failed.
    public var retries: [Duration] = [
        .seconds(5), .seconds(300), .seconds(1800), .seconds(7200), .seconds(18000), .seconds(36000),
        .seconds(36000),
    ]
    /// How long one attempt may take, from connecting to the answer's status (10 s; the
    /// lookup of its host and the wait for a sender are not counted).
    public var timeout: Duration = .seconds(10)
    /// An endpoint whose deliveries have all failed for this long is disabled (5 days).
    public var disableAfter: Duration = .seconds(5 * 86400)
    /// How long the previous secret keeps signing after a rotation (24 hours).
    public var secretOverlap: Duration = .seconds(86400)
    /// Whether endpoints may be loopback receivers (`serve --allow-loopback-webhooks`).
    public var allowLoopback = false
    /// The most of an answer's body read (the rest is not waited for).
    public var maxResponseBytes = 64 << 10
    /// Attempts this node has in flight at most (its senders): a sender that finishes takes
    /// the next due delivery at once; nothing waits for the slowest of a batch.
    public var senders = 64
    /// Attempts in flight at most for one key's endpoints, over every node: a key with many slow
    /// endpoints holds this many senders, and the others serve the other keys.
    public var perOwner = 16
    /// Attempts in flight at most to one endpoint, over every node.
    public var perEndpoint = 8
    /// Endpoints one key may have (`POST /v1/webhook-endpoints` is 409 past it).
    public var maxEndpointsPerKey = 16
    /// How often one endpoint may be replayed (429 sooner).
    public var replayEvery: Duration = .seconds(60)
    /// How long a lookup of an endpoint's host may take (on threads of its own, never the
    /// server's), before the attempt fails.
    public var lookupTimeout: Duration = .seconds(5)
    /// How long a claimed delivery is this node's before another may send it.
    public var lease: Duration = .seconds(60)
    /// How long an idle sender waits before asking the database again.
    public var idlePoll: Duration = .milliseconds(100)
    /// How often the endpoints of the attempts in flight are looked at: an attempt to one
    /// deleted or disabled meanwhile (on any node) is cancelled.
    public var cancelPoll: Duration = .milliseconds(250)

    public init() {}
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int {
        Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000)
    }
}
