import CardService
import Foundation
import ImageCore
import NIOHTTP1
import RenderCache
import ServerShell
import TestSupport
import Testing
import ThumbServer
import VipsKit

/// `/v1` by HTTP's conventions, against a live service: uploads in the image's own type or
/// a form, damaged photos refused at once, unknown fields and bad parameters refused in
/// words (over every operation of the document, with generated bad input), the
/// Idempotency-Key's form, malformed and stalled bodies, the moving copy of a photo, keys
/// revoked and rotated, and failed authentication throttled.
@Suite(
    .libvips,
    .enabled(
        if: FileManager.default.fileExists(atPath: Fixtures.photo("photos/phone-4032x3024.jpg")),
        "../shared/corpus is absent"))
struct APIConventionTests {
    static let photo = ServiceAPITests.photo

    /// What no answer may contain: Swift's and the generated code's own words.
    static let internals = [
        "DecodingError", "CodingKeys", "OpenAPIValueContainer", "typeMismatch", "keyNotFound", "valueNotFound",
        "dataCorrupted", "Swift.", "Optional(", "Components.", "Operations.", "ServerError", "RuntimeError",
        "Dictionary<", "Array<",
    ]

    @Test("uploads in each image type, as octet-stream and as a form's one part; the format read from the bytes")
    func uploads() async throws {
        try await LiveService.with(.sqlite) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let jpeg = try Data(contentsOf: URL(fileURLWithPath: Self.photo))
            let scratch = try Fixtures.scratchDirectory("uploads")
            try Synthetic.quadrants(scratch + "/q.png", width: 64, height: 48)
            let png = try Data(contentsOf: URL(fileURLWithPath: scratch + "/q.png"))
            for type in [
                "image/jpeg", "image/png", "image/heic", "image/heif", "image/webp", "image/tiff", "image/gif",
                "application/octet-stream", "IMAGE/JPEG; charset=binary",
            ] {
                // A PNG sent under another image type is still a PNG: the bytes decide.
                let reply = try await live.send(.POST, "/v1/photos", key: key, body: png, contentType: type)
                #expect([200, 201].contains(reply.status), "\(type): \(reply.status) \(reply.text)")
                #expect(reply.json["format"] as? String == "png", "\(type): \(reply.text)")
                #expect(reply.json["width"] as? Int == 64)
            }
            // A browser form: one file part, any name, its own type.
            let boundary = "cardrender-test-boundary"
            func form(_ parts: [(String, Data)]) -> Data {
                var body = Data()
                for (name, bytes) in parts {
                    body.append(Data("--\(boundary)\r\n".utf8))
                    body.append(
                        Data(
                            "Content-Disposition: form-data; name=\"\(name)\"; filename=\"\(name).jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
                                .utf8))
                    body.append(bytes)
                    body.append(Data("\r\n".utf8))
                }
                body.append(Data("--\(boundary)--\r\n".utf8))
                return body
            }
            let multipart = "multipart/form-data; boundary=\(boundary)"
            // A form's other fields (no file name) beside the file are ignored.
            var withField = Data(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nBeach\r\n".utf8)
            withField.append(form([("photo", png)]))
            let fielded = try await live.send(.POST, "/v1/photos", key: key, body: withField, contentType: multipart)
            #expect(
                [200, 201].contains(fielded.status) && fielded.json["format"] as? String == "png", "\(fielded.text)")
            let one = try await live.send(
                .POST, "/v1/photos", key: key, body: form([("photo", jpeg)]), contentType: multipart)
            #expect(one.status == 201, "\(one.text)")
            #expect(one.json["width"] as? Int == 4032 && one.json["format"] as? String == "jpeg", "\(one.text)")
            let digest = ContentDigest.of(jpeg)
            #expect(one.json["id"] as? String == digest, "the id is the file's digest, not the form's")
            let two = try await live.send(
                .POST, "/v1/photos", key: key, body: form([("a", png), ("b", png)]), contentType: multipart)
            #expect(two.status == 422 && two.text.contains("more than one file"), "\(two.text)")
            let none = try await live.send(.POST, "/v1/photos", key: key, body: form([]), contentType: multipart)
            #expect(none.status == 422 && none.text.contains("no file part"), "\(none.text)")
            // A type that is not an image: 415, naming what is taken, once.
            let text = try await live.send(.POST, "/v1/photos", key: key, body: png, contentType: "text/plain")
            #expect(text.status == 415)
            #expect(text.text.contains("image/jpeg") && text.text.contains("multipart/form-data"), "\(text.text)")
            #expect(text.text.components(separatedBy: "image/jpeg").count == 2, "said once: \(text.text)")
            // A damaged photo is refused at upload, not after the order.
            let damaged = try Data(contentsOf: URL(fileURLWithPath: Fixtures.photo("broken/corrupted-3648x2736.jpg")))
            let refused = try await live.send(.POST, "/v1/photos", key: key, body: damaged, contentType: "image/jpeg")
            #expect(refused.status == 422, "\(refused.text)")
            #expect(refused.text.contains("damaged"), "\(refused.text)")
            let stored = try await live.send(.GET, "/v1/photos/\(ContentDigest.of(damaged))", key: key)
            #expect(stored.status == 404, "a refused photo is not stored")
        }
    }

    @Test("the moving copy: a photo's upright JPEG at a width, HEIC included; another key's is not found")
    func movingCopy() async throws {
        let heic = Fixtures.photo("photos/iphone13-3024x4032.heic")
        try await LiveService.with(.sqlite) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let other = try await live.service.book.createKey(name: "other").secret
            let turned = try await live.upload(Fixtures.photo("orientation/Portrait_6.jpg"), key: key)
            let copy = try await live.send(.GET, "/v1/photos/\(turned)?width=300", key: key)
            #expect(copy.status == 200 && copy.header("Content-Type") == "image/jpeg", "\(copy.text.prefix(300))")
            let image = try Fixtures.load(copy.body)
            #expect(image.width == 300 && image.height > 300, "upright: \(image.width)x\(image.height)")
            let facts = try await live.send(.GET, "/v1/photos/\(turned)", key: key)
            #expect(facts.json["width"] as? Int == image.width * (facts.json["height"] as? Int ?? 0) / image.height)
            if FileManager.default.fileExists(atPath: heic) {
                let id = try await live.upload(heic, key: key)
                let reduced = try await live.send(.GET, "/v1/photos/\(id)?width=480", key: key)
                #expect(reduced.status == 200, "\(reduced.text.prefix(300))")
                let decoded = try Fixtures.load(reduced.body)
                #expect(decoded.width == 480 && decoded.height == 640, "\(decoded.width)x\(decoded.height)")
            }
            let theirs = try await live.send(.GET, "/v1/photos/\(turned)?width=300", key: other)
            #expect(theirs.status == 404)
            for width in ["5", "4096", "abc"] {
                let bad = try await live.send(.GET, "/v1/photos/\(turned)?width=\(width)", key: key)
                #expect(bad.status == 400 && bad.text.contains("width must be a whole number from 16 to 2048"))
            }
        }
    }

    @Test(
        "unknown fields refused, each by name; an order checked before it is queued", arguments: DatabaseKind.available)
    func unknownFields(database: DatabaseKind) async throws {
        try await LiveService.with(database) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let id = try await live.upload(Self.photo, key: key)
            let order = #"""
                {"spec": {"version": 1, "photo": "\#(id)", "colour": "red", "recipients": [{"name": "A", "nmae": "B"}]},
                 "pres": "eu-a6-fogra39"}
                """#
            let reply = try await live.send(.POST, "/v1/cards", key: key, body: Data(order.utf8))
            #expect(reply.status == 422, "\(reply.text)")
            let fields = Set(((reply.json["errors"] as? [[String: Any]]) ?? []).compactMap { $0["field"] as? String })
            #expect(fields == ["pres", "spec.colour", "spec.recipients[0].nmae"], "\(reply.text)")
            let run = try await live.send(
                .POST, "/v1/print-runs", key: key,
                body: Data(#"{"press": "eu-a6-fogra39", "sheet": "sra3", "x": 1}"#.utf8))
            #expect(run.status == 422 && run.text.contains("x is not a field here"), "\(run.text)")
            // Nothing was queued by the refusals.
            let listed = try await live.send(.GET, "/v1/cards", key: key)
            #expect((listed.json["cards"] as? [Any])?.isEmpty == true)
            // An address the post cannot take is refused before the queue, as render refuses it.
            let bad = #"""
                {"spec": {"version": 1, "photo": "\#(id)", "recipients": [{"name": "A", "address1": "1 Road", "city": "Paris", "postcode": "7500", "country": "FR"}]}}
                """#
            let refused = try await live.send(.POST, "/v1/cards", key: key, body: Data(bad.utf8))
            #expect(refused.status == 422 && refused.text.contains("postcode"), "\(refused.text)")
            #expect(((try await live.send(.GET, "/v1/cards", key: key)).json["cards"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("Idempotency-Key: 1 to 255 printable ASCII characters, else 400")
    func idempotencyKeys() async throws {
        try await LiveService.with(.sqlite) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let id = try await live.upload(Self.photo, key: key)
            let order = Data(#"{"spec": {"version": 1, "photo": "\#(id)"}}"#.utf8)
            for (value, accepted) in [
                (String(repeating: "k", count: 255), true), ("order 1/2: ~!@#$%^&*()", true),
                (String(repeating: "k", count: 256), false), (String(repeating: "k", count: 10_000), false),
                ("", false), ("clé", false),
            ] {
                let reply = try await live.send(
                    .POST, "/v1/cards", key: key, body: order, headers: [("Idempotency-Key", value)])
                #expect(reply.status == (accepted ? 202 : 400), "\(value.prefix(20)) (\(value.count)): \(reply.text)")
                if !accepted { #expect(reply.text.contains("Idempotency-Key"), "\(reply.text)") }
            }
        }
    }

    @Test("every operation, sent generated bad input, answers in words: no 5xx, no type names")
    func badInputEverywhere() async throws {
        try await LiveService.with(.sqlite) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let id = try await live.upload(Self.photo, key: key)
            let document = try await live.send(.GET, "/v1/openapi.json", key: nil)
            let paths = try #require(document.json["paths"] as? [String: [String: Any]])
            let badValues = [
                "abc", "-1", "1e400", "", String(repeating: "9", count: 300), "%00", "0x10", "1.5", "null",
            ]
            let badBodies = [
                "hello", "{", "[]", "null", "1e400", #"{"spec": 1}"#, #"{"spec": {"photo": 7}}"#,
                #"{"spec": {"photo": "\#(id)", "transform": {"scale": "big"}}}"#,
                #"{"spec": {"photo": "\#(id)", "recipients": {"name": "x"}}}"#, #"{"photo": "\#(id)", "card": []}"#,
                #"{"photo": "\#(id)", "effect": {"strength": 2}}"#, #"{"press": 3, "sheet": null}"#,
                #"{"photo": "\#(id)", "message": {"text": 1}}"#, String(repeating: "[", count: 5000),
            ]
            var sent = 0
            for (template, operations) in paths {
                for method in operations.keys where method != "parameters" {
                    var targets: [String] = []
                    let filled = template.replacingOccurrences(
                        of: #"\{[a-z]+\}"#, with: "x", options: .regularExpression)
                    let query = (operations[method] as? [String: Any])?["parameters"] as? [[String: Any]] ?? []
                    for parameter in query where parameter["in"] as? String == "query" {
                        let name = parameter["name"] as? String ?? ""
                        for value in badValues {
                            targets.append(
                                filled + "?\(name)="
                                    + (value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
                        }
                    }
                    for value in ["%ZZ", String(repeating: "a", count: 300), "..", "%2F", "%FF"] {
                        targets.append(
                            template.replacingOccurrences(of: #"\{[a-z]+\}"#, with: value, options: .regularExpression))
                    }
                    // Queries as people and programs send them: bare names, encoded names,
                    // repeated ones, a cache-buster, and the path with empty segments.
                    for query in [
                        "foo", "&", "a&b=1", "width=100&1700000000", "%77idth=0", "limit=1&%6Cimit=2", "x=%ZZ",
                    ] {
                        targets.append(filled + "?" + query)
                    }
                    targets.append(filled.replacingOccurrences(of: "/v1/", with: "/v1//") + "/")
                    targets.append(filled)
                    let verb = HTTPMethodName(method)
                    // Odd headers too: the document's header parameter, Accept.
                    let oddHeaders: [[(String, String)]] = [
                        [], [("Idempotency-Key", String(repeating: "é", count: 300))], [("Accept", ";;;==")],
                        [("Accept", "application/xml")],
                    ]
                    for target in targets {
                        let bodies: [String?] = verb.takesBody ? badBodies : [nil]
                        for (body, headers) in bodies.flatMap({ body in oddHeaders.map { (body, $0) } }) {
                            let reply = try await live.send(
                                verb.method, target, key: key, body: body.map { Data($0.utf8) }, headers: headers)
                            sent += 1
                            let request = "\(method) \(target) \(headers) \(body ?? "")"
                            #expect(reply.status < 500, "\(request): \(reply.status) \(reply.text)")
                            guard reply.status >= 400 else { continue }
                            for word in Self.internals {
                                #expect(!reply.text.contains(word), "\(request): \(reply.text)")
                            }
                            if reply.header("Content-Type") == "application/problem+json" {
                                #expect((reply.json["detail"] as? String)?.isEmpty == false, "\(reply.text)")
                            }
                        }
                    }
                }
            }
            // Other methods on the document's paths, and bodies of types no operation takes.
            for (method, path) in [(HTTPMethod.PUT, "/v1/photos"), (.DELETE, "/v1/previews"), (.HEAD, "/v1/cards")] {
                let reply = try await live.send(method, path, key: key)
                #expect(reply.status == 405 && reply.header("Allow") != nil, "\(method) \(path): \(reply.status)")
            }
            for type in [
                "multipart/form-data", "multipart/form-data; boundary=", "text/plain",
                "application/json; charset=latin1",
                "", "*/*",
            ] {
                let reply = try await live.send(.POST, "/v1/photos", key: key, body: Data("x".utf8), contentType: type)
                #expect(reply.status >= 400 && reply.status < 500, "\(type): \(reply.status) \(reply.text)")
                for word in Self.internals { #expect(!reply.text.contains(word), "\(type): \(reply.text)") }
            }
            #expect(sent > 1000, "only \(sent) requests were sent")
        }
    }

    @Test(
        "a malformed chunked body is 400 and a stalled one 408, each counted; a slow body that keeps coming is read"
    )
    func brokenBodies() async throws {
        // The default pause allowed is shorter than the idle timeout that closes a silent
        // connection without an answer.
        #expect(APILimits.defaultBodyTimeout < ShellConfiguration().idleTimeout)
        // A rate of a byte a second at least: the slow body below is read (a body too slow is
        // HostileClientTests' case).
        var limits = APILimits()
        limits.bodyMinRate = 1
        try await LiveService.with(.sqlite, bodyTimeout: .seconds(4), limits: limits) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let malformed = try RawConnection(port: live.port)
            malformed.send(
                "POST /v1/cards HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(key)\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
            let answer = String(decoding: await malformed.readUntilClosed(within: 30).data, as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
            #expect(answer.contains("chunked encoding is malformed"), "\(answer)")
            let stalled = try RawConnection(port: live.port)
            stalled.send(
                "POST /v1/cards HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(key)\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 100\r\n\r\n{\"spec\"")
            let late = String(decoding: await stalled.readUntilClosed(within: 30).data, as: UTF8.self)
            #expect(late.hasPrefix("HTTP/1.1 408"), "\(late)")
            // A body that takes longer than the timeout in all, but never pauses that long.
            let slow = try RawConnection(port: live.port)
            let id = try await live.upload(Self.photo, key: key)
            let order = #"{"spec": {"version": 1, "photo": "\#(id)"}}"#
            slow.send(
                "POST /v1/cards HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(key)\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(order.utf8.count)\r\nConnection: close\r\n\r\n")
            let pieces = stride(from: 0, to: order.count, by: 10).map { String(order.dropFirst($0).prefix(10)) }
            let paced = ContinuousClock.now
            for piece in pieces {
                slow.send(piece)
                try await Task.sleep(for: .milliseconds(5000 / pieces.count))
            }
            #expect(ContinuousClock.now - paced > .seconds(4), "the body took longer than the timeout in all")
            let answered = String(decoding: await slow.readUntilClosed(within: 30).data, as: UTF8.self)
            #expect(answered.hasPrefix("HTTP/1.1 202"), "\(answered)")
            let metrics = try await live.send(.GET, "/metrics", key: nil).text
            #expect(metrics.contains(#"cardrender_request_body_errors_total{reason="malformed"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"cardrender_request_body_errors_total{reason="stalled"} 1"#))
            #expect(metrics.contains(#"cardrender_http_requests_total{route="v1",status="408"} 1"#))
            #expect(metrics.contains(#"cardrender_http_requests_total{route="v1",status="400"} 1"#))
        }
    }

    @Test("a revoked key is refused at once; a rotated key keeps its photos under its new secret")
    func revokeAndRotate() async throws {
        try await LiveService.with(.sqlite) { live in
            let book = live.service.book
            let created = try await book.createKey(name: "phone app")
            _ = try await live.upload(Self.photo, key: created.secret)
            #expect(try await live.send(.GET, "/v1/cards", key: created.secret).status == 200)
            let fresh = try #require(try await book.rotateKey(id: created.id))
            #expect(try await live.send(.GET, "/v1/cards", key: created.secret).status == 401)
            let photo = try await live.send(
                .GET, "/v1/photos/\(ContentDigest.of(try Data(contentsOf: URL(fileURLWithPath: Self.photo))))",
                key: fresh)
            #expect(photo.status == 200, "the rotated key still owns its photo: \(photo.text)")
            #expect(try await book.revokeKey(id: created.id))
            let refused = try await live.send(.GET, "/v1/cards", key: fresh)
            #expect(refused.status == 401 && refused.text.contains("revoked"), "\(refused.text)")
            #expect(try await book.revokeKey(id: created.id) == false)
            #expect(try await book.rotateKey(id: created.id) == nil)
            let listed = try await book.keys()
            #expect(listed.count == 1 && listed[0].revoked != nil && listed[0].rotated != nil)
        }
    }

    @Test("failed authentication is slowed per address: 429 once the burst is spent, never for a valid key")
    func throttledAuthentication() async throws {
        // A token back once an hour: what the test sees does not depend on how fast it runs.
        try await LiveService.with(.sqlite, failedAuthentications: (20, 1.0 / 3600)) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            var statuses: [Int] = []
            for attempt in 0..<22 {
                statuses.append(try await live.send(.GET, "/v1/cards", key: "crk_guess\(attempt)").status)
            }
            #expect(statuses.prefix(20).allSatisfy { $0 == 401 }, "\(statuses)")
            #expect(statuses.suffix(2).allSatisfy { $0 == 429 }, "\(statuses)")
            let slowed = try await live.send(.GET, "/v1/cards", key: "crk_guess")
            #expect(slowed.status == 429 && slowed.header("Retry-After") != nil, "\(slowed.text)")
            // A valid key from the address is served: a guess at a 128-bit key gains nothing.
            let right = try await live.send(.GET, "/v1/cards", key: key)
            #expect(right.status == 200, "\(right.text)")
            let metrics = try await live.send(.GET, "/metrics", key: nil).text
            #expect(metrics.contains("cardrender_auth_failures_total 23"), "\(metrics)")
            #expect(metrics.contains("cardrender_auth_throttled_total 3"), "\(metrics)")
        }
    }
}

/// An HTTP method of the document by name.
private struct HTTPMethodName {
    let method: NIOHTTP1.HTTPMethod
    let takesBody: Bool

    init(_ name: String) {
        method = NIOHTTP1.HTTPMethod(rawValue: name.uppercased())
        takesBody = ["post", "put", "patch"].contains(name)
    }
}
