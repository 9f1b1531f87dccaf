import Foundation
import HTTPTypes
import ServerShell
import TestSupport
import Testing
import ThumbServer

/// What RFC 9112 and RFC 9110 require of every answer, probed on raw sockets: a request
/// without `Host` is refused, an HTTP/1.0 request's connection is closed after its answer
/// (not held to the idle timeout), and a route that exists answers another method with 405
/// and `Allow`.
@Suite(.libvips) struct HTTPByTheLetterTests {
    /// The idle timeout the probes run under: far longer than any wait below, so a
    /// connection closed within it was closed by the answer.
    static let shell = ShellConfiguration(idleTimeout: .seconds(900))

    @Test("an HTTP/1.1 request without Host, or with two, is 400 and its connection closed")
    func hostIsRequired() async throws {
        let tree = try ServedTree.make()
        try await LiveServer.with(ThumbConfiguration(root: tree.root), shell: Self.shell) { server in
            for request in [
                "GET /healthz HTTP/1.1\r\n\r\n", "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
                "GET /thumb/photos/quad.png?width=10 HTTP/1.1\r\n\r\n",
            ] {
                let connection = try RawConnection(port: server.port)
                connection.send(request)
                let (data, closed) = await connection.readUntilClosed(within: 600)
                let text = String(decoding: data, as: UTF8.self)
                #expect(text.hasPrefix("HTTP/1.1 400"), "\(request.debugDescription)")
                #expect(text.lowercased().contains("connection: close"))
                #expect(closed)
            }
            // With its Host, the same request is served.
            let connection = try RawConnection(port: server.port)
            connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(
                String(decoding: await connection.readUntilClosed(within: 600).data, as: UTF8.self).hasPrefix(
                    "HTTP/1.1 200"))
        }
    }

    @Test("an HTTP/1.0 request is answered with Connection: close and the socket closed at once")
    func http10Closes() async throws {
        let tree = try ServedTree.make()
        try await LiveServer.with(ThumbConfiguration(root: tree.root), shell: Self.shell) { server in
            for target in ["/healthz", "/thumb/photos/quad.png?width=10", "/thumb/missing.png?width=10"] {
                let connection = try RawConnection(port: server.port)
                connection.send("GET \(target) HTTP/1.0\r\n\r\n")
                let (data, closed) = await connection.readUntilClosed(within: 600)
                let text = String(decoding: data, as: UTF8.self)
                #expect(text.hasPrefix("HTTP/1."), "\(target)")
                #expect(text.lowercased().contains("\r\nconnection: close\r\n"), "\(target): \(text.prefix(300))")
                // Closed within the wait, shorter than the idle timeout: by the answer, not the timer.
                #expect(closed, "\(target)")
            }
            // HTTP/1.0 asking to keep the connection: kept, and told so.
            let connection = try RawConnection(port: server.port)
            connection.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(await connection.hasAnswer(within: 600))
            connection.send("GET /healthz HTTP/1.0\r\n\r\n")
            let (data, closed) = await connection.readUntilClosed(within: 600)
            let text = String(decoding: data, as: UTF8.self).lowercased()
            #expect(text.contains("connection: keep-alive"))
            #expect(text.components(separatedBy: "http/1.1 200").count == 3)
            #expect(closed)
        }
    }

    @Test("POST /healthz and DELETE /metrics are 405 with Allow, as /thumb/ is")
    func otherMethods() async throws {
        let tree = try ServedTree.make()
        try await LiveServer.with(ThumbConfiguration(root: tree.root), shell: Self.shell) { server in
            for (method, path) in [
                ("POST", "/healthz"), ("DELETE", "/metrics"), ("POST", "/thumb/photos/quad.png?width=10"),
            ] {
                let reply = try await server.request(path, method: .init(method)!)
                #expect(reply.status == 405, "\(method) \(path)")
                #expect(reply.header("Allow") == "GET, HEAD", "\(method) \(path)")
            }
            #expect(try await server.request("/healthz", method: .head).status == 200)
        }
    }
}
