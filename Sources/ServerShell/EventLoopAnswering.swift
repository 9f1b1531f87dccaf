import HTTPTypes

/// A route group that can answer some requests at once, on the event loop that read them
/// (a thumbnail in memory, a 304, a verified disk hit): asked only for plain GETs and HEADs
/// under its path, with no body and no `Connection` header, while no earlier request on the
/// connection is still waiting. Nil passes the request on to the group's responder, which
/// must then decide it the same way.
package protocol EventLoopAnswering: Sendable {
    /// The answer for this request now, or nil to pass it on. Must not block.
    func answerAtOnce(method: HTTPRequest.Method, path: String, query: String?, headers: HTTPFields)
        -> ImmediateAnswer?
}
