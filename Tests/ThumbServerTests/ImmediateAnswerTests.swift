import Foundation
import HTTPTypes
import RenderCache
import TestSupport
import Testing
import ThumbServer

/// What the event loop answers at once (`ImmediateAnswerHandler`): memory hits and 304s,
/// the same answers the responder gives, in the order a pipelining client asked.
@Suite(.libvips) struct ImmediateAnswerTests {
    @Test func aMemoryHitIsTheRespondersAnswerWithoutTheWait() async throws {
        let tree = try ServedTree.make()
        try await LiveServer.with(ThumbConfiguration(root: tree.root)) { server in
            let target = "/thumb/photos/quad.png?width=30&format=auto"
            let rendered = try await server.request(target, headers: [.accept: "image/webp"])
            let hit = try await server.request(target, headers: [.accept: "image/webp"])
            #expect(rendered.header("X-Cache") == "rendered" && hit.header("X-Cache") == "memory")
            #expect(hit.status == 200 && hit.body == rendered.body && hit.header("Content-Type") == "image/webp")
            // Every header the responder sent, with the same value (but the date and the source).
            let names = { (reply: LiveServer.Reply) in Set(reply.headers.map(\.name.canonicalName)) }
            #expect(names(hit) == names(rendered))
            for field in rendered.headers where !["date", "x-cache"].contains(field.name.canonicalName) {
                #expect(hit.headers[field.name] == field.value, "\(field.name)")
            }
            #expect(hit.header("Vary") == "Accept" && hit.header("Date")?.hasSuffix(" GMT") == true)
            let head = try await server.request(target, method: .head, headers: [.accept: "image/webp"])
            #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == String(hit.body.count))
            let current = try await server.request(
                target, headers: [.accept: "image/webp", .ifNoneMatch: try #require(hit.header("ETag"))])
            #expect(current.status == 304 && current.body.isEmpty && current.header("X-Cache") == "memory")
            #expect(try await server.metric(#"cardrender_cache_hits_total{layer="memory"}"#) == 3)
            #expect(try await server.metric(#"cardrender_http_requests_total{route="thumb",status="200"}"#) == 3)
            #expect(try await server.metric(#"cardrender_http_requests_total{route="thumb",status="304"}"#) == 1)
            // The memory cache counts the buffer it holds (swift-nio rounds up to a power of two), not the length.
            var held = 1
            while held < hit.body.count { held *= 2 }
            let counted = Int(try await server.metric("cardrender_memory_cache_bytes"))
            #expect(counted >= held && counted < held + 1024, "\(counted) for a \(hit.body.count)-byte thumbnail")
        }
    }

    @Test func pipelinedRequestsAreAnsweredInTheOrderAsked() async throws {
        let tree = try ServedTree.make()
        try await LiveServer.with(ThumbConfiguration(root: tree.root)) { server in
            _ = try await server.request("/thumb/photos/quad.png?width=30")  // now in memory
            let connection = try RawConnection(port: server.port)
            // A render, a hit that must wait for it, another route, a hit, and a last request that closes.
            let requests = [
                "/thumb/photos/quad.png?width=40", "/thumb/photos/quad.png?width=30", "/healthz",
                "/thumb/photos/quad.png?width=30", "/thumb/photos/quad.png?width=20",
            ]
            connection.send(
                requests.enumerated().map { index, target in
                    "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + (index == requests.count - 1 ? "Connection: close\r\n" : "") + "\r\n"
                }.joined())
            let (data, closed) = await connection.readUntilClosed(within: 600)
            #expect(closed, "the last request asked to close")
            let text = String(decoding: data, as: UTF8.self)
            let sizes = text.components(separatedBy: "\r\n").filter { $0.lowercased().hasPrefix("x-image-size:") }
                .map { $0.split(separator: " ").last.map(String.init) ?? "" }
            #expect(sizes == ["40x30", "30x23", "30x23", "20x15"], "\(sizes)")
            // Five answers, all 200 (a status line follows a binary body directly: counted, not split).
            #expect(text.ranges(of: "HTTP/1.1 ").count == 5 && text.ranges(of: "HTTP/1.1 200 OK\r\n").count == 5)
            let health = try #require(text.range(of: "\r\n\r\nok\n"))
            #expect(text.ranges(of: "X-Image-Size: 30x23").count == 2)
            #expect(text.range(of: "X-Image-Size: 30x23")!.lowerBound < health.lowerBound)
            #expect(text.range(of: "X-Image-Size: 30x23", options: .backwards)!.lowerBound > health.lowerBound)
        }
    }

    /// A disk hit on an entry this server has read and found sound is sent from its file
    /// (sendfile): the same bytes and headers as the read one, HEAD and pipelining included;
    /// a file put in its place (another inode) with damaged bytes is not sent but read,
    /// found corrupt, removed and rendered again.
    @Test func aDiskHitOnAVerifiedEntryIsSentFromItsFile() async throws {
        let tree = try ServedTree.make()
        var configuration = ThumbConfiguration(root: tree.root)
        configuration.memoryCacheBytes = 0
        try await LiveServer.with(configuration) { server in
            let target = "/thumb/photos/quad.png?width=30"
            let rendered = try await server.request(target)
            let read = try await server.request(target)
            #expect(try await server.metric("cardrender_cache_file_sends_total") == 0, "the first disk hit reads")
            let sent = try await server.request(target)
            #expect(rendered.header("X-Cache") == "rendered" && read.header("X-Cache") == "disk")
            #expect(sent.status == 200 && sent.header("X-Cache") == "disk" && sent.body == rendered.body)
            #expect(try await server.metric("cardrender_cache_file_sends_total") == 1)
            for field in read.headers where field.name.canonicalName != "date" {
                #expect(sent.headers[field.name] == field.value, "\(field.name)")
            }
            #expect(Set(sent.headers.map(\.name)) == Set(read.headers.map(\.name)))
            let head = try await server.request(target, method: .head)
            #expect(
                head.status == 200 && head.body.isEmpty && head.header("Content-Length") == String(rendered.body.count))
            // Three pipelined: the first sent from the file, another route, and the last (which
            // asks to close, so goes to the responder: read from disk) in order.
            let connection = try RawConnection(port: server.port)
            connection.send(
                ["\(target)", "/healthz", "\(target)"].enumerated().map { index, path in
                    "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (index == 2 ? "Connection: close\r\n" : "") + "\r\n"
                }.joined())
            let (data, closed) = await connection.readUntilClosed(within: 600)
            #expect(closed)
            let health = try #require(data.firstRange(of: Data("\r\n\r\nok\n".utf8)))
            let first = try #require(data.firstRange(of: rendered.body))
            let second = try #require(data.lastRange(of: rendered.body))
            #expect(first.upperBound <= health.lowerBound && second.lowerBound >= health.upperBound)
            #expect(try await server.metric("cardrender_cache_file_sends_total") == 2)
            // Another file in the entry's place, damaged: never sent unread.
            let etag = try #require(sent.header("ETag"))
            let key = try #require(CacheKey(hex: String(etag.dropFirst().dropLast())))
            let path = server.service.cache.store.path(of: key)
            var damaged = try Data(contentsOf: URL(fileURLWithPath: path))
            damaged[damaged.count - 10] ^= 0xFF
            try damaged.write(to: URL(fileURLWithPath: path + ".new"))
            #expect(rename(path + ".new", path) == 0)
            let again = try await server.request(target)
            #expect(again.status == 200 && again.body == rendered.body && again.header("X-Cache") == "rendered")
            #expect(try await server.metric("cardrender_cache_file_sends_total") == 2)
        }
    }

    @Test func aCurrentCopyIsDecidedFromTheKeyWithoutReadingTheEntry() async throws {
        let tree = try ServedTree.make()
        var configuration = ThumbConfiguration(root: tree.root)
        configuration.memoryCacheBytes = 0  // nothing kept in memory: every answer is the disk's or the key's
        try await LiveServer.with(configuration) { server in
            let target = "/thumb/photos/quad.png?width=30"
            let first = try await server.request(target)
            let tag = try #require(first.header("ETag"))
            #expect(first.header("X-Cache") == "rendered")

            let current = try await server.request(target, headers: [.ifNoneMatch: tag])
            #expect(current.status == 304 && current.body.isEmpty)
            #expect(current.header("X-Cache") == "tag" && current.header("ETag") == tag)
            #expect(current.header("Last-Modified") == first.header("Last-Modified"))
            #expect(current.header("Cache-Control") == first.header("Cache-Control"))
            #expect(try await server.metric(#"cardrender_cache_hits_total{layer="tag"}"#) == 1)
            #expect(try await server.metric(#"cardrender_cache_hits_total{layer="disk"}"#) == 0)

            let stale = try await server.request(target, headers: [.ifNoneMatch: "\"other\""])
            #expect(stale.status == 200 && stale.header("X-Cache") == "disk" && stale.body == first.body)

            // The photo replaced: the old tag is not current any more, whatever the client holds.
            try Synthetic.quadrants(tree.root + "/photos/quad.png", width: 80, height: 40)
            let replaced = try await server.request(target, headers: [.ifNoneMatch: tag])
            #expect(replaced.status == 200 && replaced.header("X-Cache") == "rendered")
            #expect(replaced.header("ETag") != tag && replaced.header("X-Image-Size") == "30x15")
        }
    }

    @Test func theAccessLogHasOneLinePerRequestInTheLoggersLayout() async throws {
        let tree = try ServedTree.make()
        let server = try await ServeProcess.start(["--root", tree.root])
        defer { server.process.terminate() }
        // Rendered; then a hit, answered on the event loop (a request that closes is the
        // responder's, hence the /healthz after it); then a refusal.
        let asked = [
            ["/thumb/photos/quad.png?width=30"], ["/thumb/photos/quad.png?width=30", "/healthz"],
            ["/thumb/photos/missing.png?width=30"],
        ]
        for targets in asked {
            let connection = try RawConnection(port: server.port)
            connection.send(
                targets.enumerated().map { index, target in
                    "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + (index == targets.count - 1 ? "Connection: close\r\n" : "") + "\r\n"
                }.joined())
            #expect(await connection.readUntilClosed(within: 600).closed)
        }
        server.process.terminate()
        _ = try await server.waitForExit()
        let lines = server.log.split(separator: "\n").filter { $0.contains("path=/thumb/") }
        let pattern =
            #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} info cardrender\.serve: bytes=(\d+) (?:cache=(\w+) )?duration_ms=\d+\.\d{3} method=GET path=(\S+) status=(\d+) \[ThumbServer\] request$/#
        let parsed = lines.compactMap { line in
            (try? pattern.wholeMatch(in: String(line))).map { ($0.1, $0.2.map(String.init), $0.3, $0.4) }
        }
        #expect(parsed.count == 3, "\(lines)")
        guard parsed.count == 3 else { return }
        #expect(parsed[0].1 == "rendered" && parsed[1].1 == "memory" && parsed[2].1 == nil)
        #expect(parsed[0].0 == parsed[1].0 && parsed[0].0 != "0")
        #expect(parsed[1].2 == "/thumb/photos/quad.png?width=30" && parsed[1].3 == "200")
        #expect(parsed[2].3 == "404")
    }

    @Test func aDiskHitNeverWaitsForAWorker() async throws {
        let tree = try ServedTree.make()
        var configuration = ThumbConfiguration(root: tree.root)
        configuration.workers = 1
        configuration.queueLimit = 0
        configuration.memoryCacheBytes = 0  // every hit is the disk's
        try await LiveServer.with(configuration) { server in
            let target = "/thumb/photos/quad.png?width=30"
            let first = try await server.request(target)
            #expect(first.header("X-Cache") == "rendered")
            // The only worker is held until the gate opens, so no timing decides what follows.
            let pool = server.service.pool
            let gate = DispatchSemaphore(value: 0)
            async let held: Void = pool.run { gate.wait() }
            #expect(await Poll.until(seconds: 600) { pool.load.busy == 1 })
            // Busy before and after (any render is refused), and the disk hit is answered between;
            // the gate opens whatever happens, so a failed request cannot leave the worker held.
            let replies: Result<(LiveServer.Reply, LiveServer.Reply, LiveServer.Reply), any Error>
            do {
                replies = .success(
                    (
                        try await server.request("/thumb/photos/quad.png?width=31"), try await server.request(target),
                        try await server.request("/thumb/photos/quad.png?width=32")
                    ))
            } catch {
                replies = .failure(error)
            }
            gate.signal()
            _ = try await held
            let (before, hit, after) = try replies.get()
            #expect(before.status == 503, "\(before.status) \(before.text)")
            #expect(after.status == 503, "\(after.status) \(after.text)")
            #expect(hit.status == 200 && hit.header("X-Cache") == "disk" && hit.body == first.body)
            #expect(hit.header("ETag") == first.header("ETag"))
        }
    }
}

/// `--decoded-photos`: another width of a photo at the same DCT scale starts from the kept
/// decode (counted at `/metrics`) and is the thumbnail a server keeping none makes.
@Suite(.libvips) struct DecodedPhotosServerTests {
    @Test func anotherWidthReusesTheDecodeAndZeroKeepsNone() async throws {
        let tree = try ServedTree.make()
        let photo = tree.root + "/photos/plain.jpg"
        try Tools.vips("black", photo + ".v", "800", "600", "--bands", "3")
        try Tools.vips("jpegsave", photo + ".v", photo)
        var bodies: [Int: [Data]] = [:]
        for bytes in [32 << 20, 0] {
            var configuration = ThumbConfiguration(root: tree.root)
            configuration.decodedPhotoBytes = bytes
            configuration.memoryCacheBytes = 0
            bodies[bytes] = try await LiveServer.with(configuration) { server in
                var made: [Data] = []
                for width in [90, 95] {
                    let reply = try await server.request("/thumb/photos/plain.jpg?width=\(width)")
                    #expect(reply.status == 200 && reply.header("X-Cache") == "rendered")
                    made.append(reply.body)
                }
                let reuses = try await server.metric("cardrender_decoded_photo_reuses_total")
                #expect(reuses == (bytes == 0 ? 0 : 1), "kept \(bytes) bytes")
                let kept = try await server.metric("cardrender_decoded_photos_bytes")
                #expect(kept == (bytes == 0 ? 0 : 200 * 150 * 3), "kept \(bytes) bytes")
                return made
            }
        }
        #expect(bodies[32 << 20] == bodies[0], "the same thumbnails with and without kept decodes")
    }
}
