import NIOCore
import NIOHTTP1

/// Closes a connection whose request's body has not all been read the way nginx does
/// (`lingering_close`): the answer is written, the sending side shut (the client sees the end
/// of the answer), then the rest of the body is read and dropped until it ends, the client
/// closes, `Lingering.maxBytes` have been read, nothing came for `quiet`, or `time` has
/// passed; only then is the connection closed.
///
/// Why: a server that answers before reading the body (413 for a body over the limit, 401, a
/// form refused at its first part) and closes at once leaves the body's unread bytes in the
/// kernel, which answers them with a reset; a client that sends its whole body before it
/// reads (Python's `http.client`, many SDKs) then gets `ECONNRESET` or `EPIPE` instead of the
/// answer.
///
/// Placed right after the HTTP/1 decoder: it sees each request's parts, every close the
/// handlers behind it ask for passes through it, and while it lingers it asks for the reads
/// itself (nothing behind it may be reading any more).
final class LingeringClose: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let settings: ShellConfiguration.Lingering
    /// A request's head was read and not yet its end.
    private var inBody = false
    private var state = State.open

    private enum State {
        case open
        /// Reading and dropping the body; the promises of the closes asked for meanwhile.
        case lingering(
            read: Int, promises: [EventLoopPromise<Void>], deadline: Scheduled<Void>?, quiet: Scheduled<Void>?)
        case closed
    }

    init(settings: ShellConfiguration.Lingering) {
        self.settings = settings
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        guard case .lingering(var read, let promises, let deadline, let quiet) = state else {
            switch part {
            case .head: inBody = true
            case .end: inBody = false
            case .body: break
            }
            context.fireChannelRead(data)
            return
        }
        switch part {
        case .body(let bytes):
            read += bytes.readableBytes
            quiet?.cancel()
            state = .lingering(read: read, promises: promises, deadline: deadline, quiet: scheduleQuiet(context))
            if read > settings.maxBytes { finish(context) }
        case .end, .head:
            // The body ended (or, pipelined, another request began: nothing more is answered).
            finish(context)
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        switch state {
        case .open where mode == .all && inBody && context.channel.isActive:
            state = .lingering(
                read: 0, promises: promise.map { [$0] } ?? [],
                deadline: context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(settings.time.nanoseconds)) {
                    [weak self] in
                    self?.finish(context)
                }, quiet: scheduleQuiet(context))
            // The answer already written goes out first, then the end of the stream.
            context.close(mode: .output, promise: nil)
            // Read on ourselves: the handler that asked for reads (the async channel) may have
            // stopped (its request's reading cancelled, or its stream ended), and unread bytes
            // are what make the reset.
            context.read()
        case .lingering(let read, var promises, let deadline, let quiet) where mode == .all:
            if let promise { promises.append(promise) }
            state = .lingering(read: read, promises: promises, deadline: deadline, quiet: quiet)
        default:
            context.close(mode: mode, promise: promise)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        guard case .lingering = state else {
            context.fireChannelReadComplete()
            return
        }
        context.read()
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard case .lingering = state else {
            context.fireErrorCaught(error)
            return
        }
        // Whatever the client sends now is dropped, malformed or not.
        finish(context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .lingering = state, let event = event as? ChannelEvent, event == .inputClosed {
            finish(context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func scheduleQuiet(_ context: ChannelHandlerContext) -> Scheduled<Void> {
        context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(settings.quiet.nanoseconds)) { [weak self] in
            self?.finish(context)
        }
    }

    /// Ends the lingering: the connection closed, the closes asked for completed.
    private func finish(_ context: ChannelHandlerContext) {
        guard case .lingering(_, let promises, let deadline, let quiet) = state else { return }
        state = .closed
        deadline?.cancel()
        quiet?.cancel()
        let closed = context.eventLoop.makePromise(of: Void.self)
        closed.futureResult.whenComplete { result in
            for promise in promises { promise.completeWith(result) }
        }
        context.close(mode: .all, promise: closed)
    }
}
