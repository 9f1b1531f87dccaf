/// The listening socket and its connections, whatever routes are mounted.
public struct ShellConfiguration: Sendable {
    /// Address to listen on (default 127.0.0.1: put a web server in front).
    public var host: String
    /// Port to listen on; 0 picks a free one (reported by `ServerApplication.build`'s `onRunning`).
    public var port: Int
    /// How long a connection may take to send a complete request head, counted from its
    /// opening or from the end of its previous response; also how long an idle keep-alive
    /// connection is kept. A client that trickles a request, or sends nothing, is closed.
    public var idleTimeout: Duration
    /// The most connections open at once; past it the server stops accepting until one
    /// closes (new clients wait in the kernel's listen queue).
    public var maxConnections: Int
    /// How a connection closed before its request's body was read lingers (`LingeringClose`).
    public var lingering = Lingering()

    /// How long, and how much, a connection closed mid-body keeps reading (and dropping) the
    /// body after its answer, so the client reads the answer instead of a reset: nginx's
    /// `lingering_time` (30 s) and `lingering_timeout` (5 s), and a bound in bytes.
    public struct Lingering: Sendable {
        /// The longest the reading goes on.
        public var time: Duration = .seconds(30)
        /// The longest it waits for more bytes.
        public var quiet: Duration = .seconds(5)
        /// The most bytes it reads.
        public var maxBytes = 128 << 20

        /// nginx's defaults, and 128 MiB.
        public init() {}
    }

    public init(
        host: String = "127.0.0.1", port: Int = 8080, idleTimeout: Duration = .seconds(15), maxConnections: Int = 1024
    ) {
        self.host = host
        self.port = port
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
    }
}
