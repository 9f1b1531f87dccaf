import CardKit
import CardPipeline
import Foundation
import HTTPTypes
import ImageCore
import PhotoSources
import RenderCache
import TestSupport
import Testing
import ThumbServer
import Thumbnails
import VipsKit

/// `/thumb` for web pages, over a real socket: boxes, density, Client Hints, fallbacks,
/// placeholders, quality and presets, animation, CORS and expiring signatures.
@Suite(.libvips) struct ThumbBoxRouteTests {
    static let animated = Fixtures.root.path + "/Tests/animated/"

    /// A served tree with the animated GIF beside the usual files.
    static func tree(_ label: String = #function) throws -> ServedTree {
        let tree = try ServedTree.make(label)
        try FileManager.default.copyItem(
            atPath: animated + "rotating-squares.gif", toPath: tree.root + "/photos/squares.gif")
        return tree
    }

    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func boxesFitCoverContainAndDensity() async throws {
        let tree = try Self.tree()
        try await LiveServer.with(ThumbConfiguration(root: tree.root)) { server in
            let cover = try await server.request(
                "/thumb/photos/corpus.jpg?width=200&height=200&fit=cover&format=jpeg")
            #expect(cover.status == 200 && cover.header("X-Image-Size") == "200x200")
            let image = try Fixtures.load(cover.body)
            #expect(image.width == 200 && image.height == 200)
            let contain = try await server.request("/thumb/photos/corpus.jpg?width=200&height=200&fit=contain")
            #expect(contain.header("X-Image-Size") == "200x200")
            let padded = try Fixtures.load(contain.body)
            let corner = try padded.pixel(x: 100, y: 2)
            #expect(padded.bands == 4 && corner[3] == 0)
            let red = try await server.request(
                "/thumb/photos/corpus.jpg?width=200&height=200&fit=contain&background=ff0000&format=jpeg")
            let top = try Fixtures.load(red.body).pixel(x: 100, y: 2)
            #expect(top[0] > 240 && top[1] < 15)
            // dpr multiplies the box; a small photo is never enlarged, and the answer says so.
            let dense = try await server.request("/thumb/photos/corpus.jpg?width=200&height=100&fit=cover&dpr=2")
            #expect(dense.header("X-Image-Size") == "400x200")
            let small = try await server.request("/thumb/photos/quad.png?width=60&height=60&fit=cover&dpr=3")
            #expect(small.header("X-Image-Size") == "48x48")
            let wide = try await server.request("/thumb/photos/quad.png?width=60&dpr=2")
            #expect(wide.header("X-Image-Size") == "64x48")
            // Refusals name the parameter.
            for (query, name) in [
                ("width=20&fit=squash", "fit:"), ("width=20&dpr=5", "dpr:"), ("width=20&focus=2,0", "focus:"),
                ("width=20&gravity=up", "gravity:"), ("width=20&background=red", "background:"),
                ("fit=cover", "width:"), ("width=20&focus=0.5,0.5&gravity=north", "focus:"),
                // A padded canvas of 16384 px a side is refused before any pixel.
                ("width=4096&height=4096&fit=contain&dpr=4", "dpr:"),
            ] {
                let reply = try await server.request("/thumb/photos/quad.png?" + query)
                #expect(reply.status == 400 && reply.text.hasPrefix(name), "\(query): \(reply.text)")
            }
        }
    }

    /// A width alone keeps its tag: its cache key is made from the recipe as it was before
    /// boxes (the fields of `ThumbnailRecipe.init(width:...)` and nothing else).
    @Test func aWidthAloneKeepsItsKey() async throws {
        let tree = try Self.tree()
        try await LiveServer.with(ThumbConfiguration(root: tree.root)) { server in
            for (query, format) in [("width=32", OutputFormat.png), ("width=32&format=webp", .webp)] {
                let reply = try await server.request("/thumb/photos/quad.png?" + query)
                let data = try Data(contentsOf: URL(fileURLWithPath: tree.root + "/photos/quad.png"))
                let digest = data.withUnsafeBytes { ContentDigest.of($0) }
                let recipe = ThumbnailRecipe(
                    width: 32, enlarge: false, options: EncodeOptions(format: format), policy: .default, engine: .auto)
                let key = try CacheKey(inputDigest: digest, recipe: recipe, versions: CacheVersions.current)
                #expect(reply.header("ETag") == "\"\(key.hex)\"", "\(query)")
            }
        }
    }

    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func clientHintsSnapToTheWidthsAndVary() async throws {
        let tree = try Self.tree()
        var configuration = ThumbConfiguration(root: tree.root)
        configuration.clientHints = true
        configuration.widths = [160, 320, 640]
        try await LiveServer.with(configuration) { server in
            var headers = HTTPFields()
            headers[HTTPField.Name("Sec-CH-DPR")!] = "2"
            let hinted = try await server.request("/thumb/photos/corpus.jpg?width=100", headers: headers)
            #expect(hinted.header("X-Image-Size") == "320x240")
            #expect(hinted.header("Vary") == "Sec-CH-DPR")
            #expect(hinted.header("Accept-CH") == "Sec-CH-DPR, Sec-CH-Width")
            let plain = try await server.request("/thumb/photos/corpus.jpg?width=100")
            #expect(plain.header("X-Image-Size") == "100x75")
            // A dpr in the URL wins over the hint.
            let named = try await server.request("/thumb/photos/corpus.jpg?width=100&dpr=1", headers: headers)
            #expect(named.header("X-Image-Size") == "100x75" && named.header("Vary") == nil)
            var width = HTTPFields()
            width[HTTPField.Name("Sec-CH-Width")!] = "500"
            let sized = try await server.request("/thumb/photos/corpus.jpg?format=auto", headers: width)
            #expect(sized.header("X-Image-Size") == "640x480")
            #expect(sized.header("Vary") == "Accept, Sec-CH-Width")
            // A tall box stays within --max-width: the hinted density gives way.
            let tall = try await server.request("/thumb/photos/corpus.jpg?width=100&height=4000", headers: headers)
            #expect(tall.status == 200)
            let missing = try await server.request("/thumb/photos/corpus.jpg")
            #expect(missing.status == 400 && missing.text.contains("Sec-CH-Width"))
        }
        // Off by default: the hints are ignored.
        try await LiveServer.with(ThumbConfiguration(root: tree.root)) { server in
            var headers = HTTPFields()
            headers[HTTPField.Name("Sec-CH-DPR")!] = "2"
            let reply = try await server.request("/thumb/photos/corpus.jpg?width=100", headers: headers)
            #expect(reply.header("X-Image-Size") == "100x75" && reply.header("Vary") == nil)
            #expect(reply.header("Accept-CH") == nil)
        }
    }

    @Test func theFallbackImageAnswersWithTheTrueStatus() async throws {
        let tree = try Self.tree()
        var configuration = ThumbConfiguration(root: tree.root)
        configuration.fallbackImage = try ImageData(
            contentsOfFile: Self.animated + "animated-loop-3.gif", maxBytes: 1 << 20)
        try await LiveServer.with(configuration) { server in
            for (path, status) in [
                ("photos/missing.jpg", 404), ("notes.txt", 415), ("photos/broken.jpg", 422),
            ] {
                let reply = try await server.request("/thumb/\(path)?width=50&height=50&fit=cover&format=jpeg")
                #expect(reply.status == status, "\(path)")
                #expect(reply.header("Cache-Control") == "no-store", "\(path)")
                #expect(reply.header("Content-Type") == "image/jpeg", "\(path)")
                #expect(reply.header("X-Image-Size") == "50x50", "\(path)")
                #expect(reply.header("X-Image-Error") != nil && reply.header("ETag") == nil, "\(path)")
                let image = try Fixtures.load(reply.body)
                #expect(image.width == 50 && image.height == 50, "\(path)")
            }
            // A bad request is the page's fault, not the photo's: no picture for it.
            let bad = try await server.request("/thumb/photos/missing.jpg?width=0")
            #expect(bad.status == 400 && bad.header("Content-Type")?.hasPrefix("text/plain") == true)
            #expect(try await server.metric("cardrender_fallback_images_total") == 3)
            #expect(
                try await server.metric(#"cardrender_http_requests_total{route="thumb",status="404"}"#) == 1)
        }
    }

    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func placeholdersAreJSONAndATinyJPEG() async throws {
        let tree = try Self.tree()
        try await LiveServer.with(ThumbConfiguration(root: tree.root)) { server in
            let hash = try await server.request("/thumb/photos/corpus.jpg?width=400&height=300&placeholder=thumbhash")
            #expect(hash.status == 200 && hash.header("Content-Type") == "application/json")
            let json = try JSONSerialization.jsonObject(with: hash.body) as? [String: Any]
            #expect(json?["width"] as? Int == 400 && json?["height"] as? Int == 300)
            #expect(Data(base64Encoded: json?["thumbhash"] as? String ?? "") != nil)
            // From the cache the same.
            let again = try await server.request("/thumb/photos/corpus.jpg?width=400&height=300&placeholder=thumbhash")
            #expect(again.body == hash.body && again.header("Content-Type") == "application/json")
            let blur = try await server.request("/thumb/photos/corpus.jpg?width=400&placeholder=blur")
            #expect(blur.header("Content-Type") == "image/jpeg" && blur.body.count < 2048)
            #expect(blur.header("X-Image-Size") == "32x24")
            let refused = try await server.request("/thumb/photos/corpus.jpg?width=400&placeholder=blur&format=webp")
            #expect(refused.status == 400 && refused.text.hasPrefix("placeholder:"))
        }
    }

    @Test func qualityPerFormatAndPresets() async throws {
        let tree = try Self.tree()
        var configuration = ThumbConfiguration(root: tree.root)
        configuration.qualities = [.webp: 20]
        configuration.presets["card"] = try ThumbParameters.preset(
            "card=width=40,height=30,fit=cover,focus=0.2,0.8,format=jpeg", maxWidth: 4096
        ).parameters
        try await LiveServer.with(configuration) { server in
            var accept = HTTPFields()
            accept[.accept] = "image/webp"
            let low = try await server.request("/thumb/photos/quad.png?width=60&format=webp")
            let named = try await server.request("/thumb/photos/quad.png?width=60&format=webp&quality=90")
            #expect(low.body.count < named.body.count, "the server's WebP default is 20")
            // A quality for JPEG does not touch the WebP that auto picks...
            let jpegOnly = try await server.request(
                "/thumb/photos/quad.png?width=60&format=auto&quality=jpeg:95", headers: accept)
            #expect(jpegOnly.header("Content-Type") == "image/webp" && jpegOnly.body == low.body)
            // ...and one for WebP does.
            let webp = try await server.request(
                "/thumb/photos/quad.png?width=60&format=auto&quality=jpeg:95,webp:90", headers: accept)
            #expect(webp.body == named.body)
            let preset = try await server.request("/thumb/photos/quad.png?preset=card")
            #expect(preset.status == 200 && preset.header("X-Image-Size") == "40x30")
            #expect(preset.header("Content-Type") == "image/jpeg")
            let unknown = try await server.request("/thumb/photos/quad.png?preset=hero")
            #expect(unknown.status == 400 && unknown.text.contains("card"))
        }
        configuration.presetsOnly = true
        try await LiveServer.with(configuration) { server in
            #expect(try await server.request("/thumb/photos/quad.png?preset=card").status == 200)
            let other = try await server.request("/thumb/photos/quad.png?preset=card&width=10")
            #expect(other.status == 400 && other.text.hasPrefix("width:"))
            #expect(try await server.request("/thumb/photos/quad.png?width=10").status == 400)
        }
    }

    @Test func animationsStayAnimatedOrSayTheyWereCut() async throws {
        let tree = try Self.tree()
        var configuration = ThumbConfiguration(root: tree.root)
        configuration.maxFrames = 12
        try await LiveServer.with(configuration) { server in
            // A browser's Accept lists AVIF first: an animation is still sent as WebP.
            var accept = HTTPFields()
            accept[.accept] = "image/avif,image/webp,image/apng,*/*;q=0.8"
            let webp = try await server.request("/thumb/photos/squares.gif?width=40&format=auto", headers: accept)
            #expect(webp.header("Content-Type") == "image/webp" && webp.header("X-Image-Size") == "40x40")
            #expect(webp.header("X-Image-Frames") == "12 of 30")
            let gif = try await server.request("/thumb/photos/squares.gif?width=40&format=gif")
            #expect(gif.header("Content-Type") == "image/gif")
            let path = try Fixtures.scratchDirectory() + "/answer.gif"
            try gif.body.write(to: URL(fileURLWithPath: path))
            let pages = try Tools.run("/usr/bin/vipsheader", ["-f", "n-pages", path + "[n=-1]"])
            #expect(String(decoding: pages.stdout, as: UTF8.self).hasPrefix("12"))
            let png = try await server.request("/thumb/photos/squares.gif?width=40")
            #expect(png.header("X-Image-Frames") == "1 of 30")
            // From memory, the same headers.
            let again = try await server.request("/thumb/photos/squares.gif?width=40")
            #expect(again.header("X-Image-Frames") == "1 of 30" && again.header("X-Cache") == "memory")
        }
    }

    @Test func crossOriginHeadersAndPreflight() async throws {
        let tree = try Self.tree()
        var configuration = ThumbConfiguration(root: tree.root)
        configuration.allowedOrigins = ["https://shop.example"]
        try await LiveServer.with(configuration) { server in
            var origin = HTTPFields()
            origin[.origin] = "https://shop.example"
            let allowed = try await server.request("/thumb/photos/quad.png?width=20", headers: origin)
            #expect(allowed.header("Access-Control-Allow-Origin") == "https://shop.example")
            #expect(allowed.header("Timing-Allow-Origin") == "https://shop.example")
            #expect(allowed.header("Vary") == "Origin")
            origin[.origin] = "https://elsewhere.example"
            let other = try await server.request("/thumb/photos/quad.png?width=20", headers: origin)
            #expect(other.status == 200 && other.header("Access-Control-Allow-Origin") == nil)
            let missing = try await server.request("/thumb/photos/none.png?width=20", headers: origin)
            #expect(missing.status == 404 && missing.header("Vary") == "Origin")
            let preflight = try await server.request("/thumb/photos/quad.png?width=20", method: .options)
            #expect(preflight.status == 204 && preflight.header("Access-Control-Allow-Methods") == "GET, HEAD")
        }
        configuration.allowedOrigins = ["*"]
        try await LiveServer.with(configuration) { server in
            let any = try await server.request("/thumb/photos/quad.png?width=20")
            #expect(any.header("Access-Control-Allow-Origin") == "*" && any.header("Timing-Allow-Origin") == "*")
            #expect(any.header("Vary") == nil)
        }
    }

    @Test func expiringSignatures() async throws {
        let tree = try Self.tree()
        let key = try SigningKey(bytes: Array("a key of thirty-two bytes or more!!".utf8))
        var configuration = ThumbConfiguration(root: tree.root)
        configuration.signingKey = key
        configuration.maxAge = 86_400
        let signer = URLSigner(key: key)
        try await LiveServer.with(configuration) { server in
            // Bounded by the clock read around the request, not by how long it took.
            let now = Int(Date().timeIntervalSince1970)
            let live = try await server.request(signer.sign("/thumb/photos/quad.png?width=20&exp=\(now + 600)"))
            let after = Int(Date().timeIntervalSince1970)
            #expect(live.status == 200)
            let maxAge = Int(live.header("Cache-Control")?.split(separator: "=").last ?? "") ?? -1
            #expect((now + 600 - after...600).contains(maxAge), "cached no longer than the URL lives")
            let expired = try await server.request(signer.sign("/thumb/photos/quad.png?width=20&exp=\(now - 1)"))
            #expect(expired.status == 403 && expired.text.contains("expired"))
            // exp is signed: moving it breaks the signature.
            let signed = signer.sign("/thumb/photos/quad.png?width=20&exp=\(now - 1)")
            let moved = signed.replacingOccurrences(of: "exp=\(now - 1)", with: "exp=\(now + 9999)")
            #expect(try await server.request(moved).status == 403)
        }
    }
}
