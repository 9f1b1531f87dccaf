/// What `/v1` allows a client before the service does any work: each key's rate, how a body
/// must arrive, how uploads share the node, how failed authentication is slowed, and which
/// proxies may say who the client is (docs/service.md, "Keys, limits").
public struct APILimits: Sendable {
    /// Requests a second per API key (bursts of twice that); more are 429.
    public var requestsPerSecond: Double = 100
    /// How long a request's body may pause (408 when nothing more arrives for that long):
    /// shorter than the server's idle timeout (15 s), which closes a silent connection
    /// without an answer. Also the grace before `bodyMinRate` counts.
    public var bodyTimeout: Duration = defaultBodyTimeout
    /// 10 s.
    public static let defaultBodyTimeout = Duration.seconds(10)
    /// The slowest a body may arrive on average, in bytes a second, counted from its start
    /// once `bodyTimeout` has passed (a trickle of a byte every few seconds is 408).
    public var bodyMinRate = 4096
    /// The longest a whole body may take to arrive (408 after it).
    public var bodyDeadline: Duration = .seconds(300)
    /// How long an upload or scan may wait for its turn (`FairPermits`) before 503 with
    /// `Retry-After`.
    public var uploadWait: Duration = .seconds(10)
    /// Requests without a valid key an address may send at once (`burst`), then one every
    /// `1 / perSecond` seconds; past that its requests without a valid key are 429 (never a
    /// request with a valid key).
    public var failedAuthentications: (burst: Double, perSecond: Double) = (20, 0.5)
    /// The longest `Retry-After` failed authentication earns an address: its debt stops
    /// growing there.
    public var failedAuthenticationMaxWait = 60
    /// The proxies whose `X-Forwarded-For` names the client (`serve --trusted-proxy`); a
    /// request from any other address is its own client.
    public var trustedProxies: [AddressRange] = []

    /// The defaults above.
    public init() {}
}
