import HTTPTypes
import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// Answers `/thumb` requests that need no waiting on the event loop that read them: a
/// thumbnail in memory, or a 304 decided from its cache key (`ThumbService.answerAtOnce`).
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

    private let service: ThumbService
    private let accessLog: AccessLog
    /// Requests passed on whose response has not ended yet.
    private var waiting = 0
    /// The request being read now: answered here (with its answer) or passed on.
    private var current: Current = .idle

    private enum Current {
        case idle
        case passedOn
        case answering(HTTPRequest, ThumbService.Answer, ContinuousClock.Instant)
    }

    init(service: ThumbService, accessLog: AccessLog) {
        self.service = service
        self.accessLog = accessLog
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch (part, current) {
        case (.head(let request), _):
            let started = ContinuousClock.now
            if waiting == 0, let answer = answer(request) {
                current = .answering(request, answer, started)
            } else {
                waiting += 1
                current = .passedOn
                context.fireChannelRead(data)
            }
        case (.body, .answering):
            break
        case (.end, .answering(let request, let answer, let started)):
            current = .idle
            write(answer, for: request, started: started, context: context)
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

    /// The answer for a plain GET or HEAD of a thumbnail, when one is ready.
    private func answer(_ request: HTTPRequest) -> ThumbService.Answer? {
        guard request.method == .get || request.method == .head, let target = request.path,
            target.hasPrefix(ThumbService.prefix), request.headerFields[.connection] == nil,
            request.headerFields[.contentLength] == nil, request.headerFields[.transferEncoding] == nil
        else { return nil }
        let uri = URI(target)
        return service.answerAtOnce(
            method: request.method, path: uri.path, query: uri.query, headers: request.headerFields)
    }

    private func write(
        _ answer: ThumbService.Answer, for request: HTTPRequest, started: ContinuousClock.Instant,
        context: ChannelHandlerContext
    ) {
        var headers = answer.headers
        headers[.date] = HTTPDate.now()
        context.write(wrapOutboundOut(.head(HTTPResponse(status: answer.status, headerFields: headers))), promise: nil)
        if let body = answer.body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        accessLog.record(
            method: request.method.rawValue, target: request.path ?? "", route: "thumb", status: answer.status.code,
            bytes: answer.status == .notModified ? nil : headers[.contentLength], source: headers[.xCache],
            duration: ContinuousClock.now - started)
    }
}
