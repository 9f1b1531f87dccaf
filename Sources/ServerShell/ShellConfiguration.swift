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

    public init(
        host: String = "127.0.0.1", port: Int = 8080, idleTimeout: Duration = .seconds(15), maxConnections: Int = 1024
    ) {
        self.host = host
        self.port = port
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
    }
}
