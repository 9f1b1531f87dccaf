import NIOCore
import NIOHTTP1

/// What HTTP/1.x requires of a request and its connection that the decoder leaves to the
/// server (RFC 9112), checked right after it:
/// - an HTTP/1.1 request has exactly one `Host` (section 3.2), a request of any version at
///   most one: otherwise 400 and the connection closed, the request never reaching a route;
/// - `Expect: 100-continue` is answered `100 Continue` at once;
/// - a request that does not keep the connection alive (HTTP/1.0 without
///   `Connection: keep-alive`, or `Connection: close`) is answered with `Connection: close`
///   and the connection closed once the answer is written (section 9.3), not held to the
///   idle timeout; an HTTP/1.0 keep-alive request is answered `Connection: keep-alive`.
///
/// Pipelined requests are answered in order, so each answer takes the flags of the oldest
/// request not yet answered, and a refusal waits for the answers before it.
final class HTTP1RequestChecks: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// What the answer to one request must say and do.
    private struct Answering {
        /// Close the connection once it is written.
        var close: Bool
        /// Say `Connection: keep-alive` (an HTTP/1.0 client's keep-alive request).
        var keepAlive10: Bool
    }
    /// Requests passed on and not yet answered, oldest first.
    private var pending: [Answering] = []
    /// A refused request's reason: once set, nothing more is read, and the refusal is
    /// written after the answers still pending.
    private var refusal: String?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard refusal == nil else { return }
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        var hosts = 0
        var expectsContinue = false
        for header in head.headers {
            if Self.equalsIgnoringCase(header.name, "host") {
                hosts += 1
            } else if Self.equalsIgnoringCase(header.name, "expect") {
                expectsContinue = expectsContinue || Self.equalsIgnoringCase(header.value, "100-continue")
            }
        }
        let modern = head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
        if hosts > 1 || (modern && hosts == 0) {
            refusal =
                hosts == 0
                ? "bad request: an HTTP/1.1 request needs a Host header (RFC 9112 section 3.2).\n"
                : "bad request: a request may have one Host header (RFC 9112 section 3.2).\n"
            if pending.isEmpty { refuse(context: context) }
            return
        }
        let close = !head.isKeepAlive
        if close, !head.headers[canonicalForm: "connection"].contains(where: { $0.lowercased() == "close" }) {
            // Downstream (Hummingbird's connection state) then closes after the answer too.
            head.headers.add(name: "connection", value: "close")
        }
        pending.append(Answering(close: close, keepAlive10: !close && !modern))
        // `Expect: 100-continue` (curl sends it before a body over 1 KiB and waits a second
        // for the answer): the interim 100 at once, so the body follows without the wait
        // (RFC 9110 section 10.1.1). A request refused before its body reads no more of it.
        if modern, expectsContinue {
            head.headers.remove(name: "expect")
            context.writeAndFlush(
                wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var answering = pending.first ?? Answering(close: false, keepAlive10: false)
        if case .head(let head) = unwrapOutboundIn(data), Self.saysClose(head.headers) {
            // The server closes after this answer (shutting down, an error): it says so, and
            // this handler closes too.
            answering = Answering(close: true, keepAlive10: false)
            if !pending.isEmpty { pending[0] = answering }
        }
        switch unwrapOutboundIn(data) {
        case .head(var head) where answering.close || answering.keepAlive10:
            head.headers.remove(name: "connection")
            head.headers.add(name: "connection", value: answering.close ? "close" : "keep-alive")
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end:
            if !pending.isEmpty { pending.removeFirst() }
            if answering.close {
                let written = promise ?? context.eventLoop.makePromise()
                context.write(data, promise: written)
                let channel = context.channel
                written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            } else {
                context.write(data, promise: promise)
                if refusal != nil, pending.isEmpty { refuse(context: context) }
            }
        default:
            context.write(data, promise: promise)
        }
    }

    /// Whether the headers hold a `Connection` field with the `close` option (the hit path
    /// answers without one: checked on the bytes, no array made per answer).
    private static func saysClose(_ headers: HTTPHeaders) -> Bool {
        for header in headers where equalsIgnoringCase(header.name, "connection") {
            for option in header.value.utf8.split(separator: UInt8(ascii: ",")) {
                let trimmed = option.drop { $0 == 32 || $0 == 9 }.reversed().drop { $0 == 32 || $0 == 9 }
                if trimmed.count == 5, equalsIgnoringCase(String(decoding: trimmed.reversed(), as: UTF8.self), "close")
                {
                    return true
                }
            }
        }
        return false
    }

    /// Whether `text` is `lowercase` (ASCII letters in either case).
    private static func equalsIgnoringCase(_ text: String, _ lowercase: String) -> Bool {
        text.utf8.count == lowercase.utf8.count
            && zip(text.utf8, lowercase.utf8).allSatisfy { ($0 >= 65 && $0 <= 90 ? $0 + 32 : $0) == $1 }
    }

    /// Writes the 400 of `refusal` and closes the connection.
    private func refuse(context: ChannelHandlerContext) {
        let reason = refusal ?? "bad request\n"
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
