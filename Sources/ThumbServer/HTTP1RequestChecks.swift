import NIOCore
import NIOHTTP1

/// What HTTP/1.x requires of a request and its connection that the decoder leaves to the
/// server (RFC 9112), checked right after it:
/// - an HTTP/1.1 request has exactly one `Host` (section 3.2), a request of any version at
///   most one: otherwise 400 and the connection closed, the request never reaching a route;
/// - a request that does not keep the connection alive (HTTP/1.0 without
///   `Connection: keep-alive`, or `Connection: close`) is answered with `Connection: close`
///   and the connection closed once the answer is written (section 9.3), not held to the
///   idle timeout; an HTTP/1.0 keep-alive request is answered `Connection: keep-alive`.
final class HTTP1RequestChecks: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        /// Passing requests on; `close` after the current answer, `keepAlive10` for an
        /// HTTP/1.0 keep-alive request.
        case passing(close: Bool, keepAlive10: Bool)
        /// A request was refused: nothing more is read.
        case refused
    }
    private var state = State.passing(close: false, keepAlive10: false)

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        guard case .passing = state else { return }
        guard case .head(var head) = part else {
            context.fireChannelRead(data)
            return
        }
        let hosts = head.headers["host"].count
        let modern = head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
        if hosts > 1 || (modern && hosts == 0) {
            refuse(
                context: context,
                reason: hosts == 0
                    ? "bad request: an HTTP/1.1 request needs a Host header (RFC 9112 section 3.2).\n"
                    : "bad request: a request may have one Host header (RFC 9112 section 3.2).\n")
            return
        }
        let close = !head.isKeepAlive
        if close, !head.headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "close" }) {
            // Downstream (Hummingbird's connection state) then closes after the answer too.
            head.headers.add(name: "connection", value: "close")
        }
        state = .passing(close: close, keepAlive10: !close && !modern)
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .passing(let close, let keepAlive10) = state else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        switch unwrapOutboundIn(data) {
        case .head(var head) where close || keepAlive10:
            head.headers.remove(name: "connection")
            head.headers.add(name: "connection", value: close ? "close" : "keep-alive")
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end where close:
            let written = promise ?? context.eventLoop.makePromise()
            context.write(data, promise: written)
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
        default:
            context.write(data, promise: promise)
        }
    }

    private func refuse(context: ChannelHandlerContext, reason: String) {
        state = .refused
        var headers = HTTPHeaders()
        headers.add(name: "content-type", value: "text/plain; charset=utf-8")
        headers.add(name: "content-length", value: String(reason.utf8.count))
        headers.add(name: "connection", value: "close")
        headers.add(name: "cache-control", value: "no-store")
        context.write(
            wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))),
            promise: nil)
        context.write(
            wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: reason)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
