import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import SystemPackage

/// Answers requests that need no waiting on the event loop that read them, for the route
/// groups that can (`EventLoopAnswering`: the thumbnail routes' memory hits, 304s decided
/// from a cache key, and disk hits on entry files already verified, sent by sendfile).
/// Everything else goes on to Hummingbird's responder unchanged.
///
/// Why: a memory hit is a dictionary lookup and a shared buffer, but the responder's path
/// costs a Swift task, two thread hand-offs, a request object and a logger per request;
/// answered here, a hit costs what its bytes cost (see RESULTS.md, issue 20).
///
/// Order on a connection is kept: a request is answered here only while no request passed
/// on is still waiting for its response (counted by the responses' ends going out), so a
/// pipelining client gets its answers in the order it asked. A request with
/// `Connection: close` or a body is passed on: the responder closes, and drains, as it does.
final class ImmediateAnswerHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The groups that answer at once.
    private let groups: [RouteGroup]
    private let accessLog: AccessLog
    /// Requests passed on whose response has not ended yet.
    private var waiting = 0
    /// The request being read now: answered here (with its answer) or passed on.
    private var current: Current = .idle

    private enum Current {
        case idle
        case passedOn
        case answering(HTTPRequest, ImmediateAnswer, label: String, ContinuousClock.Instant)
    }

    init(groups: [RouteGroup], accessLog: AccessLog) {
        self.groups = groups.filter { $0.answering != nil }
        self.accessLog = accessLog
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch (part, current) {
        case (.head(let request), _):
            let started = ContinuousClock.now
            if waiting == 0, let (answer, label) = answer(request) {
                current = .answering(request, answer, label: label, started)
            } else {
                waiting += 1
                current = .passedOn
                context.fireChannelRead(data)
            }
        case (.body, .answering):
            break
        case (.end, .answering(let request, let answer, let label, let started)):
            current = .idle
            write(answer, for: request, label: label, started: started, context: context)
        case (.end, _):
            current = .idle
            context.fireChannelRead(data)
        default:
            context.fireChannelRead(data)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { waiting = max(0, waiting - 1) }
        context.write(data, promise: promise)
    }

    /// The answer for a plain GET or HEAD under a group that answers at once, when one is
    /// ready, with the group's label.
    private func answer(_ request: HTTPRequest) -> (ImmediateAnswer, String)? {
        guard request.method == .get || request.method == .head, let target = request.path,
            request.headerFields[.connection] == nil, request.headerFields[.contentLength] == nil,
            request.headerFields[.transferEncoding] == nil
        else { return nil }
        let uri = URI(target)
        guard let group = groups.first(where: { $0.holds(uri.path) }),
            let answer = group.answering?.answerAtOnce(
                method: request.method, path: uri.path, query: uri.query, headers: request.headerFields)
        else { return nil }
        return (answer, group.label)
    }

    /// Writes `file`'s bytes as the body, by sendfile: as a `FileRegion`, which the HTTP/1
    /// encoder passes to the socket unread. HTTPTypes' body parts carry only `ByteBuffer`s,
    /// so the region goes in below `HTTP1ToHTTPServerCodec`, through its context, between
    /// the head and the end written the usual way (every handler that tracks the response,
    /// such as the connection's idle state, still sees it whole). The descriptor is closed
    /// once the write is done or has failed.
    private func send(_ file: ImmediateAnswer.FileBody, context: ChannelHandlerContext) {
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: file.descriptor.rawValue)
        let region = FileRegion(fileHandle: handle, readerIndex: file.offset, endIndex: file.offset + file.length)
        guard let codec = try? context.pipeline.syncOperations.context(handlerType: HTTP1ToHTTPServerCodec.self)
        else {
            // Not this pipeline's shape: read the bytes instead (never expected; kept safe).
            var buffer = context.channel.allocator.buffer(capacity: file.length)
            _ = try? buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: file.length) {
                try file.descriptor.read(fromAbsoluteOffset: Int64(file.offset), into: $0)
            }
            try? handle.close()
            context.write(wrapOutboundOut(.body(buffer)), promise: nil)
            return
        }
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { _ in try? handle.close() }
        codec.write(NIOAny(HTTPServerResponsePart.body(.fileRegion(region))), promise: written)
    }

    private func write(
        _ answer: ImmediateAnswer, for request: HTTPRequest, label: String, started: ContinuousClock.Instant,
        context: ChannelHandlerContext
    ) {
        var headers = answer.headers
        headers[.date] = HTTPDate.now()
        context.write(wrapOutboundOut(.head(HTTPResponse(status: answer.status, headerFields: headers))), promise: nil)
        if let body = answer.body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        if let file = answer.file { send(file, context: context) }
        // Counted before the answer is flushed, so a client that has the answer finds it in
        // `/metrics` (as the routes' answers are, counted before Hummingbird writes them).
        accessLog.record(
            method: request.method.rawValue, target: request.path ?? "", route: label,
            status: answer.status.code,
            bytes: answer.status == .notModified ? nil : headers[.contentLength], source: headers[.xCache],
            duration: ContinuousClock.now - started)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
