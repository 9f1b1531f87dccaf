import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import Synchronization

/// Reads a `/v1` request's body into memory within its bounds: its size, a pause between
/// parts (`APILimits.bodyTimeout`), an average rate once that grace has passed
/// (`bodyMinRate`) and a deadline for the whole (`bodyDeadline`); a form's parts read as they
/// arrive, under `MultipartFormReader`'s bounds. Whatever breaks a bound is refused at once,
/// the connection closed (lingering, by the server's shell, so the client reads the answer).
struct BodyCollector: Sendable {
    let limits: APILimits
    let metrics: PostcardMetrics

    /// A body read whole: its bytes, and for a form the file part's place in them.
    struct Collected: Sendable {
        let bytes: ByteBuffer
        let file: Range<Int>?

        /// The bytes the route reads: the file part of a form, or the whole body.
        var payload: ByteBuffer {
            guard let file else { return bytes }
            return bytes.getSlice(at: bytes.readerIndex + file.lowerBound, length: file.count) ?? ByteBuffer()
        }
    }

    /// The request's body, at most `limit` bytes; with `form`, read as that form.
    /// - Throws: `Problem` 413 (too large), 408 (it stopped arriving, or came too slowly), 400
    ///   (malformed: a broken chunked encoding or form; or the connection broke), 422 (a form
    ///   without one file).
    func collect(_ request: Request, limit: Int, form: MultipartFormReader?) async throws -> Collected {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw refusal(
                .contentTooLarge, "The body is \(length) bytes; this route takes \(limit) at most.", "too_large")
        }
        // Without Content-Length or Transfer-Encoding an HTTP/1.1 request has no body.
        if request.headers[.contentLength] == nil, request.headers[values: .transferEncoding].isEmpty {
            if form != nil { throw Self.formRefusal(.malformed("the body is empty")) }
            return Collected(bytes: ByteBuffer(), file: nil)
        }
        let limits = self.limits
        let started = ContinuousClock.now
        let progress = Progress()
        do {
            return try await withThrowingTaskGroup(of: Collected?.self) { group in
                group.addTask {
                    var body = ByteBuffer()
                    var form = form
                    for try await part in request.body {
                        guard body.readableBytes + part.readableBytes <= limit else {
                            throw Problem(
                                .contentTooLarge, "The body is over \(limit) bytes, the most this route takes.")
                        }
                        body.writeImmutableBuffer(part)
                        progress.arrived(bytes: part.readableBytes, at: ContinuousClock.now - started)
                        try form?.read(body)
                    }
                    return Collected(bytes: body, file: try form?.file())
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: min(limits.bodyTimeout / 4, .seconds(1)))
                        if progress.problem(after: ContinuousClock.now - started, limits: limits) != nil {
                            return nil
                        }
                    }
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let body = first else {
                    let (detail, reason) =
                        progress.problem(after: ContinuousClock.now - started, limits: limits)
                        ?? ("The body stopped arriving; send it again.", "stalled")
                    throw refusal(.requestTimeout, detail, reason)
                }
                return body
            }
        } catch let refused as MultipartFormReader.Refusal {
            if !refused.isContent { metrics.bodyRefused("malformed") }
            throw Self.formRefusal(refused)
        } catch var problem as Problem {
            if problem.status == .contentTooLarge { metrics.bodyRefused("too_large") }
            problem.headers[.connection] = "close"
            throw problem
        } catch is HTTPParserError {
            throw refusal(.badRequest, "The body cannot be read: its chunked encoding is malformed.", "malformed")
        } catch {
            // The connection closed (or the server is stopping) before the body was whole.
            throw refusal(.badRequest, "The body ended before it was whole (the connection closed).", "disconnected")
        }
    }

    /// A refusal that closes the connection, counted under `reason`.
    private func refusal(_ status: HTTPResponse.Status, _ detail: String, _ reason: String) -> Problem {
        metrics.bodyRefused(reason)
        var problem = Problem(status, detail)
        problem.headers[.connection] = "close"
        return problem
    }

    /// A form refused: 400 for its shape and bounds (the connection closed: the rest of the
    /// body is not read), 422 for a form read whole without one file.
    static func formRefusal(_ refused: MultipartFormReader.Refusal) -> Problem {
        if refused.isContent { return Problem(.unprocessableContent, refused.description) }
        var problem = Problem(.badRequest, refused.description)
        problem.headers[.connection] = "close"
        return problem
    }

    /// How much of a body has arrived, and when its last part did: written by the reader,
    /// read by the watchdog.
    private final class Progress: Sendable {
        private let bytes = Atomic<Int>(0)
        /// Nanoseconds from the start of the reading.
        private let last = Atomic<Int64>(0)

        func arrived(bytes count: Int, at elapsed: Duration) {
            bytes.add(count, ordering: .relaxed)
            let (seconds, attoseconds) = elapsed.components
            last.store(seconds * 1_000_000_000 + attoseconds / 1_000_000_000, ordering: .relaxed)
        }

        /// Why the body is too slow after `elapsed`, with the reason counted, or nil.
        func problem(after elapsed: Duration, limits: APILimits) -> (String, String)? {
            let pause = limits.bodyTimeout
            if elapsed - .nanoseconds(last.load(ordering: .relaxed)) > pause {
                return ("Nothing more of the body arrived for \(pause.components.seconds) s; send it again.", "stalled")
            }
            if elapsed > limits.bodyDeadline {
                return (
                    "The body took longer than \(limits.bodyDeadline.components.seconds) s to arrive, the longest this server waits for one.",
                    "too_slow"
                )
            }
            let counted = elapsed - pause
            let seconds = Double(counted.components.seconds) + Double(counted.components.attoseconds) / 1e18
            let received = bytes.load(ordering: .relaxed)
            if seconds > 0, Double(received) < Double(limits.bodyMinRate) * seconds {
                return (
                    "The body arrived too slowly: \(received) bytes in \(elapsed.components.seconds) s; after its first \(pause.components.seconds) s a body must come at \(limits.bodyMinRate) bytes a second or more.",
                    "too_slow"
                )
            }
            return nil
        }
    }
}
