import HTTPTypes
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1.1 connection with three handlers more: `LingeringClose` (a
/// connection closed before its request's body was read keeps reading it for a while, so the
/// client reads the answer), `HTTP1RequestChecks` (Host, HTTP/1.0's close) and
/// `ImmediateAnswerHandler`, which answers what needs no waiting (a thumbnail in memory, a
/// 304) on the event loop that read the request, and passes everything else on to the
/// responder.
///
/// The pipeline is `HTTP1Channel`'s (same decoder limits, no pipelining assistance, the same
/// idle timeout through `HTTPConnectionStateHandler`), built here because Hummingbird adds
/// its extra handlers in front of `HTTPConnectionStateHandler`, where answered requests
/// would not count as activity and a busy keep-alive connection could be closed as idle.
struct ServerChannel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let idleTimeout: TimeAmount?
    /// The route groups, for the ones that answer at once.
    let groups: [RouteGroup]
    let accessLog: AccessLog
    /// How a connection closed mid-body lingers.
    let lingering: ShellConfiguration.Lingering

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let decoder = HTTP1Channel.Configuration.DecoderConfiguration()
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = decoder.maxHeaderFieldSize
            limits.maxHeaderListSize = decoder.maxHeaderListSize
            limits.maxHeaderFieldCount = decoder.maxHeaderFieldCount
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
            try channel.pipeline.syncOperations.addHandler(LingeringClose(settings: lingering))
            try channel.pipeline.syncOperations.addHandler(HTTP1RequestChecks())
            try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try channel.pipeline.syncOperations.addHandler(
                HTTPConnectionStateHandler(
                    idleTimeout: idleTimeout.map { .nanoseconds($0.nanoseconds) }, logger: logger))
            try channel.pipeline.syncOperations.addHandler(
                ImmediateAnswerHandler(groups: groups, accessLog: accessLog))
            return try NIOAsyncChannel(
                wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value asyncChannel: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: asyncChannel, logger: logger)
    }
}
