import Foundation
import HTTPTypes
import ImageCore
import TestSupport
import Testing
import ThumbServer
import VipsKit

/// `/thumb` over a real socket: images, HTTP caching, and every refusal.
@Suite(.libvips) struct ThumbRouteTests {
    @Test func servesAPNGAtTheAskedWidthWithTheSourceColours() async throws {
        let tree = try ServedTree.make()
        try await LiveServer.with(ThumbConfiguration(root: tree.root)) { server in
            let reply = try await server.request("/thumb/photos/quad.png?width=32")
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type") == "image/png")
            #expect(reply.header("Content-Length") == String(reply.body.count))
            #expect(reply.header("X-Image-Size") == "32x24")
            let image = try Fixtures.load(reply.body)
            #expect(image.width == 32 && image.height == 24)
            let red = try image.pixel(x: 4, y: 4)
            let yellow = try image.pixel(x: 28, y: 20)
            #expect(abs(red[0] - 220) <= 3 && abs(red[1] - 30) <= 3 && abs(red[2] - 30) <= 3)
            #expect(abs(yellow[0] - 230) <= 3 && abs(yellow[1] - 220) <= 3 && abs(yellow[2] - 30) <= 3)
            // A link that stays inside the root is served like its target.
            let alias = try await server.request("/thumb/photos/alias.png?width=32")
            #expect(alias.status == 200 && alias.body == reply.body)
        }
    }

    /// The route is `/thumb/` and what follows: `/thumb` alone and a neighbour's name name no
    /// photo (a raw combining mark after the slash is refused before routing: see
    /// `RoutePathTests`).
    @Test func onlyPathsBelowTheRouteNamePhotos() async throws {
        let tree = try ServedTree.make()
        try await LiveServer.with(ThumbConfiguration(root: tree.root)) { server in
            #expect(try await server.request("/thumb/photos/quad.png?width=32").status == 200)
            for target in ["/thumb?width=32", "/thumbs/photos/quad.png?width=32"] {
                let reply = try await server.request(target)
                #expect(reply.status == 404, "\(target)")
                #expect(reply.text == "not found.\n", "\(target)")
            }
        }
    }

    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func aCorpusPhotoMatchesVipsThumbnail() async throws {
        let tree = try ServedTree.make()
        let expected = try Fixtures.scratchDirectory() + "/expected.png"
        try Tools.vips("thumbnail", tree.root + "/photos/corpus.jpg", expected, "200")
        try await LiveServer.with(ThumbConfiguration(root: tree.root)) { server in
            let reply = try await server.request("/thumb/photos/corpus.jpg?width=200")
            #expect(reply.status == 200)
            let image = try Fixtures.load(reply.body)
            let reference = try Fixtures.load(expected)
            #expect(image.width == 200 && image.height == 150)
            #expect(try image.meanAbsoluteDifference(to: reference) < 2.0)
        }
    }

    @Test func everyFormatHasItsBytesAndType() async throws {
        let tree = try ServedTree.make()
        try await LiveServer.with(ThumbConfiguration(root: tree.root)) { server in
            let magic: [(String, String, [UInt8], Int)] = [
                ("jpeg", "image/jpeg", [0xFF, 0xD8, 0xFF], 0), ("webp", "image/webp", Array("WEBP".utf8), 8),
                ("avif", "image/avif", Array("ftypavif".utf8), 4), ("png", "image/png", [0x89, 0x50, 0x4E, 0x47], 0),
            ]
            for (format, type, bytes, offset) in magic {
                let reply = try await server.request("/thumb/photos/quad.png?width=20&format=\(format)")
                #expect(reply.status == 200, "\(format)")
                #expect(reply.header("Content-Type") == type)
                #expect(Array(reply.body.dropFirst(offset).prefix(bytes.count)) == bytes, "\(format)")
                #expect(reply.header("Vary") == nil)
            }
            let low = try await server.request("/thumb/photos/quad.png?width=40&format=jpeg&quality=10")
            let high = try await server.request("/thumb/photos/quad.png?width=40&format=jpeg&quality=95")
            #expect(low.body.count < high.body.count)
        }
    }

    @Test func autoFollowsAcceptAndVaries() async throws {
        let tree = try ServedTree.make()
        try await LiveServer.with(ThumbConfiguration(root: tree.root)) { server in
            let cases: [(String?, String)] = [
                ("image/avif,image/webp,image/apng,*/*;q=0.8", "image/avif"),
                ("image/webp,*/*", "image/webp"),
                ("image/avif;q=0, image/webp;q=0.9", "image/webp"),
                ("image/*,*/*;q=0.8", "image/jpeg"),
                (nil, "image/jpeg"),
            ]
            var tags: [String: String] = [:]
            for (accept, type) in cases {
                var headers = HTTPFields()
                if let accept { headers[.accept] = accept }
                let reply = try await server.request("/thumb/photos/quad.png?width=20&format=auto", headers: headers)
                #expect(reply.status == 200)
                #expect(reply.header("Content-Type") == type, "Accept: \(accept ?? "none")")
                #expect(reply.header("Vary") == "Accept")
                let tag = try #require(reply.header("ETag"))
                if let seen = tags[type] { #expect(seen == tag) } else { tags[type] = tag }
            }
            #expect(Set(tags.values).count == 3, "one ETag per format")
        }
    }

    @Test func etagsLastModifiedAnd304() async throws {
        let tree = try ServedTree.make()
        var configuration = ThumbConfiguration(root: tree.root)
        configuration.maxAge = 123
        try await LiveServer.with(configuration) { server in
            let target = "/thumb/photos/quad.png?width=30"
            let first = try await server.request(target)
            let tag = try #require(first.header("ETag"))
            let modified = try #require(first.header("Last-Modified"))
            #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && tag.count == 66, "strong, from the cache key")
            #expect(first.header("Cache-Control") == "public, max-age=123")
            #expect(modified.hasSuffix(" GMT"))

            for match in [tag, "W/\(tag)", "\"other\", \(tag)", "*"] {
                let again = try await server.request(target, headers: [.ifNoneMatch: match])
                #expect(again.status == 304, "If-None-Match: \(match)")
                #expect(again.body.isEmpty)
                #expect(again.header("ETag") == tag)
            }
            #expect(try await server.request(target, headers: [.ifNoneMatch: "\"other\""]).status == 200)
            #expect(try await server.request(target, headers: [.ifModifiedSince: modified]).status == 304)
            let before = "Thu, 01 Jan 1970 00:00:01 GMT"
            #expect(try await server.request(target, headers: [.ifModifiedSince: before]).status == 200)
            // Another width is another key, hence another tag; the same bytes under another name share it.
            let other = try await server.request("/thumb/photos/quad.png?width=31")
            #expect(other.header("ETag") != tag)
            let alias = try await server.request("/thumb/photos/alias.png?width=30")
            #expect(alias.header("ETag") == tag)
        }
    }

    @Test func headSendsTheHeadersOfGet() async throws {
        let tree = try ServedTree.make()
        try await LiveServer.with(ThumbConfiguration(root: tree.root)) { server in
            let target = "/thumb/photos/quad.png?width=25&format=webp"
            let head = try await server.request(target, method: .head)
            let get = try await server.request(target)
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.header("Content-Length") == String(get.body.count))
            #expect(head.header("ETag") == get.header("ETag"))
            #expect(head.header("Content-Type") == "image/webp")
            // The connection is still usable after a HEAD: the next request on a new one works too.
            #expect(try await server.request("/healthz").text == "ok\n")
        }
    }

    @Test func badParametersAre400NamingTheParameter() async throws {
        let tree = try ServedTree.make()
        try await LiveServer.with(ThumbConfiguration(root: tree.root, maxWidth: 4096)) { server in
            let cases: [(String, String)] = [
                ("", "width: expected a whole number from 1 to 4096 (or a height); received nothing."),
                ("width=abc", "width: expected a whole number from 1 to 4096; received \"abc\"."),
                ("width=0", "width: expected a whole number from 1 to 4096; received \"0\"."),
                ("width=-5", "width: expected a whole number from 1 to 4096; received \"-5\"."),
                ("width=4097", "width: expected a whole number from 1 to 4096; received \"4097\"."),
                ("width=1.5", "width: expected a whole number from 1 to 4096; received \"1.5\"."),
                ("width=10&width=20", "width: expected the parameter once; received \"it twice\"."),
                (
                    "width=10&format=bmp",
                    "format: expected png, jpeg (jpg), webp, avif, tiff (tif), gif or auto; received \"bmp\"."
                ),
                (
                    "width=10&format=jpeg&quality=0",
                    "quality: expected a whole number from 1 to 100, or FORMAT:Q,... (jpeg, webp, avif); received \"0\"."
                ),
                (
                    "width=10&format=jpeg&quality=101",
                    "quality: expected a whole number from 1 to 100, or FORMAT:Q,... (jpeg, webp, avif); received \"101\"."
                ),
                (
                    "width=10&format=webp&quality=x",
                    "quality: expected a whole number from 1 to 100, or FORMAT:Q,... (jpeg, webp, avif); received \"x\"."
                ),
                (
                    "width=10&quality=80",
                    "quality: expected no quality with format png or gif (they are lossless); received \"80\"."
                ),
                (
                    "widht=10",
                    "widht: expected only the parameters width, height, fit, gravity, focus, background, dpr, format, quality, placeholder, preset, exp; received \"widht=10\"."
                ),
            ]
            for (query, message) in cases {
                let reply = try await server.request("/thumb/photos/quad.png?\(query)")
                #expect(reply.status == 400, "\(query)")
                #expect(reply.text == message + "\n", "\(query)")
                #expect(reply.header("Cache-Control") == "no-store")
            }
        }
    }

    @Test func everyWayOutOfTheRootIs404() async throws {
        let tree = try ServedTree.make()
        try await LiveServer.with(ThumbConfiguration(root: tree.root)) { server in
            // The file outside exists and would render: only the checks stop these.
            let targets = [
                "/thumb/../outside/secret.png", "/thumb/photos/../../outside/secret.png",
                "/thumb/%2e%2e/outside/secret.png", "/thumb/%2E%2E%2Foutside%2Fsecret.png",
                "/thumb/photos/%2e%2e/%2e%2e/outside/secret.png", "/thumb/%252e%252e/outside/secret.png",
                "/thumb/%252e%252e%252foutside%252fsecret.png", "/thumb/" + tree.outside,
                "/thumb//" + tree.outside, "/thumb/%2F" + tree.outside.dropFirst(), "/thumb/..%5Coutside%5Csecret.png",
                "/thumb/photos/quad.png%00.jpg", "/thumb/./photos/quad.png",
                "/thumb/photos//quad.png", "/thumb/photos/escape.png", "/thumb/photos/missing.png", "/thumb/photos",
                "/thumb/photos/", "/thumb/%zz", "/nothing/here",
            ]
            for target in targets {
                let reply = try await server.request(target + "?width=10")
                #expect(reply.status == 404, "\(target)")
                #expect(reply.text == "not found.\n", "\(target)")
            }
            // A raw backslash, which Hummingbird's test client will not send: curl --path-as-is does.
            // On a thread of its own: curl waits for this process's server, which needs the
            // cooperative threads this one would otherwise hold.
            let port = server.port
            let curl = try await Tools.onWorkerThread {
                try Tools.run(
                    "/usr/bin/curl",
                    [
                        "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "60", "--path-as-is",
                        "http://127.0.0.1:\(port)/thumb/..\\outside\\secret.png?width=10",
                    ])
            }
            #expect(curl.stdoutText == "404")
            #expect(try await server.request("/thumb/photos/quad.png?width=10").status == 200)
        }
    }

    @Test func filesThatAreNotImagesAre415() async throws {
        let tree = try ServedTree.make()
        try await LiveServer.with(ThumbConfiguration(root: tree.root)) { server in
            let cases = [
                ("notes.txt", "unsupported image: not an image in a known format."),
                (
                    "drawing.svg",
                    "unsupported image: an SVG image is not accepted; expected JPEG, PNG, WebP, HEIC/AVIF, TIFF or GIF."
                ),
                ("empty.png", "unsupported image: the file is empty."),
            ]
            for (file, message) in cases {
                let reply = try await server.request("/thumb/\(file)?width=10")
                #expect(reply.status == 415, "\(file)")
                #expect(reply.text == message + "\n", "\(file)")
                #expect(!reply.text.contains(tree.root))
            }
        }
    }

    @Test func imagesOverTheLimitsOrDamagedAre422() async throws {
        let tree = try ServedTree.make()
        var pixels = ThumbConfiguration(root: tree.root)
        pixels.policy = DecodePolicy(maxPixels: 1000)
        try await LiveServer.with(pixels) { server in
            let reply = try await server.request("/thumb/photos/quad.png?width=10")
            #expect(reply.status == 422)
            #expect(
                reply.text == "image refused: the image declares 64x48 = 3072 pixels, over the limit of 1000 pixels.\n")
        }
        var bytes = ThumbConfiguration(root: tree.root)
        bytes.policy = DecodePolicy(maxFileBytes: 100)
        try await LiveServer.with(bytes) { server in
            let reply = try await server.request("/thumb/photos/quad.png?width=10")
            #expect(reply.status == 422)
            #expect(reply.text.hasPrefix("image refused: the file is "))
            #expect(reply.text.hasSuffix("bytes, over the limit of 100 bytes.\n"))
        }
        try await LiveServer.with(ThumbConfiguration(root: tree.root)) { server in
            let reply = try await server.request("/thumb/photos/broken.jpg?width=10")
            #expect(reply.status == 422)
            #expect(reply.text == "image refused: the image data is damaged and could not be decoded.\n")
        }
    }

    @Test func otherMethodsAre405AndOtherRoutesAnswer() async throws {
        let tree = try ServedTree.make()
        try await LiveServer.with(ThumbConfiguration(root: tree.root)) { server in
            let post = try await server.request("/thumb/photos/quad.png?width=10", method: .post)
            #expect(post.status == 405)
            #expect(post.header("Allow") == "GET, HEAD")
            let health = try await server.request("/healthz")
            #expect(health.status == 200 && health.text == "ok\n")
            _ = try await server.request("/thumb/photos/quad.png?width=10")
            _ = try await server.request("/thumb/photos/quad.png?width=10")
            _ = try await server.request("/thumb/photos/missing.png?width=10")
            let metrics = try await server.request("/metrics")
            #expect(metrics.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
            #expect(try await server.metric(#"cardrender_http_requests_total{route="thumb",status="200"}"#) == 2)
            #expect(try await server.metric(#"cardrender_http_requests_total{route="thumb",status="404"}"#) == 1)
            #expect(try await server.metric(#"cardrender_http_requests_total{route="thumb",status="405"}"#) == 1)
            #expect(try await server.metric("cardrender_renders_total") == 1)
            #expect(try await server.metric(#"cardrender_cache_hits_total{layer="memory"}"#) == 1)
            #expect(try await server.metric("cardrender_cache_misses_total") == 1)
            #expect(try await server.metric(#"cardrender_http_request_duration_seconds_count{route="thumb"}"#) == 4)
            #expect(try await server.metric("cardrender_queue_depth") == 0)
            #expect(try await server.metric("cardrender_workers_busy") == 0)
        }
    }

    @Test func unexpectedFailuresAre500WithoutDetail() {
        struct Unexpected: Error {}
        let refusal = ThumbRequestError.from(Unexpected(), retryAfter: 1)
        #expect(refusal == .internalError)
        #expect(refusal.status.code == 500)
        #expect(refusal.message == "internal error (logged).")
        let vips = ThumbRequestError.from(
            VipsError(operation: "pngsave", file: "/srv/secret/a.png", message: "x"), retryAfter: 1)
        #expect(vips == .internalError)
    }
}
