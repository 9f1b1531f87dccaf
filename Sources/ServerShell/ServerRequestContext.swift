import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's basic one and the client's address,
/// which the postcard service throttles failed authentication by.
public struct ServerRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connected client's address (the proxy's, behind one).
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
