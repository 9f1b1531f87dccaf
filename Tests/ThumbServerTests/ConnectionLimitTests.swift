import Foundation
import ServerShell
import TestSupport
import Testing
import ThumbServer
import VipsKit

@testable import ThumbServer

/// Slow, idle and too many clients on a live socket: none of them holds the server.
@Suite(.libvips) struct ConnectionLimitTests {
    /// A client that sends half a request line and stops, one that sends nothing, and one
    /// that trickles a header byte by byte are all closed after the idle timeout; a
    /// keep-alive connection is closed when idle; the server answers throughout.
    @Test func slowAndIdleClientsAreClosed() async throws {
        let tree = try ServedTree.make()
        let configuration = ThumbConfiguration(root: tree.root)
        try await LiveServer.with(configuration, shell: ShellConfiguration(idleTimeout: .seconds(1))) { server in
            let partial = try (0..<20).map { _ in try RawConnection(port: server.port) }
            for connection in partial { connection.send("GET /thumb/photos/quad.png?wid") }
            let silent = try RawConnection(port: server.port)
            let trickle = try RawConnection(port: server.port)
            trickle.send("GET /healthz HTTP/1.1\r\n")
            let keptAlive = try RawConnection(port: server.port)
            keptAlive.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")

            // Trickle one header byte at a time for longer than the timeout.
            let trickled = Task.detached {
                for byte in "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".utf8 {
                    trickle.send(String(UnicodeScalar(byte)))
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
            // Meanwhile the server answers others.
            #expect(
                try await Self.statusLine("/thumb/photos/quad.png?width=16", port: server.port).hasPrefix(
                    "HTTP/1.1 200"))

            for connection in partial + [silent] {
                let (data, closed) = await connection.readUntilClosed(within: 600)
                #expect(closed, "a partial or silent connection was still open")
                #expect(data.isEmpty || String(decoding: data, as: UTF8.self).hasPrefix("HTTP/1.1 "))
            }
            let reply = await keptAlive.readUntilClosed(within: 600)
            #expect(reply.closed, "an idle keep-alive connection was still open")
            #expect(String(decoding: reply.data, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
            let trickleClosed = await trickle.readUntilClosed(within: 600).closed
            #expect(trickleClosed, "a trickling client was still open")
            await trickled.value
            #expect(try await Self.statusLine("/healthz", port: server.port).hasPrefix("HTTP/1.1 200"))
        }
    }

    /// The status line of `target`, asked on a new connection that writes its request the
    /// moment it opens. (`LiveServer.request` writes after a hop through Swift's cooperative
    /// pool, which a loaded machine can delay past this suite's 1 s idle timeout: the server
    /// then rightly closes the connection and the late request is reset.)
    static func statusLine(_ target: String, port: Int) async throws -> String {
        let connection = try RawConnection(port: port)
        connection.send("GET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let (data, _) = await connection.readUntilClosed(within: 600)
        return String(decoding: data, as: UTF8.self).split(separator: "\r\n").first.map(String.init) ?? ""
    }

    /// With the cap reached, a new client is not served until a connection closes.
    @Test func theConnectionCapHoldsNewClientsUntilOneCloses() async throws {
        let tree = try ServedTree.make()
        let configuration = ThumbConfiguration(root: tree.root)
        let shell = ShellConfiguration(idleTimeout: .seconds(60), maxConnections: 3)
        try await LiveServer.with(configuration, shell: shell) { server in
            var held = try (0..<3).map { _ in try RawConnection(port: server.port) }
            for connection in held { connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n") }
            for connection in held {
                let answered = await connection.hasAnswer(within: 600)
                #expect(answered)
            }
            let waiting = try RawConnection(port: server.port)
            waiting.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            // Not served while three are open (nothing can arrive: the server is not reading
            // new connections, so this wait cannot turn a working cap into a failure).
            let early = await waiting.hasAnswer(within: 1)
            #expect(!early)
            held.removeLast()  // closes one
            let (data, _) = await waiting.readUntilClosed(within: 600)
            #expect(String(decoding: data, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        }
    }

    /// An encoder failure is the server's (500, nothing said); damaged input is the
    /// image's (422), side by side.
    @Test func anEncoderFailureIs500AndDamagedInputIs422() async throws {
        let tree = try ServedTree.make()
        try Tools.vips("black", tree.root + "/wide.png", "16384", "2", "--bands", "3")
        var configuration = ThumbConfiguration(root: tree.root)
        configuration.maxWidth = 16384
        try await LiveServer.with(configuration) { server in
            let wide = try await server.request("/thumb/wide.png?width=16384&format=webp")
            #expect(wide.status == 500)
            #expect(wide.text == "internal error (logged).\n")
            let broken = try await server.request("/thumb/photos/broken.jpg?width=100")
            #expect(broken.status == 422)
            #expect(broken.text.contains("damaged"))
        }
    }

    /// Building the application changes no process-wide libvips setting.
    @Test func buildingTheServerLeavesLibvipsSettingsAlone() async throws {
        let tree = try ServedTree.make()
        let before = Vips.concurrency
        var configuration = ThumbConfiguration(root: tree.root)
        configuration.workers = before + 3
        try await LiveServer.with(configuration) { _ in
            #expect(Vips.concurrency == before)
        }
    }

    /// RFC 9110 §5.6.7: all three date formats are read.
    @Test func httpDatesInAllThreeFormats() {
        let expected = 784_111_777  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: 1_700_000_000) == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HTTPDate.format(expected) == "Sun, 06 Nov 1994 08:49:37 GMT")
        // A two-digit year more than 50 years ahead is in the past century.
        #expect(HTTPDate.parse("Tuesday, 01-Jan-80 00:00:00 GMT", now: 1_700_000_000) == 315_532_800)
        #expect(HTTPDate.parse("Tuesday, 01-Jan-70 00:00:00 GMT", now: 1_700_000_000) == 3_155_760_000)
        for bad in [
            "", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT",
            "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT", "Sun Nov  6 08:49:37",
            "Sunday, 06-Nov-1994 08:49:37 GMT", "yesterday",
        ] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
    }

    /// The server's `format=` takes the names the command line's `--format` takes.
    @Test func theServerAndTheCommandLineTakeTheSameFormatNames() async throws {
        let tree = try ServedTree.make()
        try await LiveServer.with(ThumbConfiguration(root: tree.root)) { server in
            for (name, type) in [
                ("jpg", "image/jpeg"), ("JPEG", "image/jpeg"), ("tif", "image/tiff"), ("webp", "image/webp"),
            ] {
                let reply = try await server.request("/thumb/photos/quad.png?width=16&format=\(name)")
                #expect(reply.status == 200 && reply.header("Content-Type") == type, "\(name)")
                let output = try Fixtures.scratchDirectory("cli") + "/t"
                let run = try Tools.run(
                    Tools.cardrender,
                    [
                        "thumb", tree.root + "/photos/quad.png", "--width", "16", "--format", name, "-o", output,
                        "--no-cache",
                    ])
                #expect(run.status == 0, "\(name): \(run.stderr)")
                let written = try Data(contentsOf: URL(fileURLWithPath: output))
                #expect(written == reply.body, "\(name): the CLI and the server made different bytes")
            }
        }
    }
}
