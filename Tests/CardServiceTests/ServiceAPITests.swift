import CardKit
import Foundation
import ImageCore
import NIOHTTP1
import TestSupport
import Testing
import VipsKit

@testable import CardService

/// The `/v1` API end to end, on SQLite and on PostgreSQL: real server, real client, real
/// photos and renders.
@Suite(
    .libvips,
    .enabled(
        if: FileManager.default.fileExists(atPath: Fixtures.photo("photos/phone-4032x3024.jpg")),
        "../shared/corpus is absent"))
struct ServiceAPITests {
    static let photo = Fixtures.photo("photos/phone-4032x3024.jpg")

    /// A spec with a frame, a gesture (zoomed, dragged), a message and two recipients.
    static func spec(photo: String, recipients: Int = 2) -> String {
        let people = (0..<recipients).map { index in
            #"{"name": "Person \#(index)", "address1": "\#(index) Road", "postcode": "SW1A \#(index % 10)AA", "city": "Town", "country": "UK"}"#
        }
        return #"""
            {"version": 1, "photo": "\#(photo)", "frame": "travel/airmail",
             "transform": {"scale": 1.6, "offset": {"x": 0.2, "y": -0.1}},
             "message": {"text": "Greetings — from the coast 🌊"}, "recipients": [\#(people.joined(separator: ","))]}
            """#
    }

    @Test("the preview is byte for byte the sample render writes, front and back", arguments: DatabaseKind.available)
    func previewIsTheSample(database: DatabaseKind) async throws {
        try await LiveService.with(database) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let id = try await live.upload(Self.photo, key: key)
            let json = Self.spec(photo: id)
            let renderer = CardRenderer(catalogue: try FrameCatalogue(directory: Fixtures.root.path + "/frames"))
            // The service's backs carry a card's code: a preview, the placeholder of its size.
            var spec = try CardSpec.parse(Data(json.utf8), file: "spec")
            spec.backCode = CardCode.placeholder
            let card = try await Tools.onWorkerThread { [spec] in
                try renderer.render(
                    photo: ImageData(copying: try Data(contentsOf: URL(fileURLWithPath: Self.photo)), name: "p"),
                    spec: spec, specFile: "spec")
            }
            for _ in 0..<2 {  // the second from the kept decode
                let front = try await live.send(.POST, "/v1/previews", key: key, body: Data(json.utf8))
                #expect(front.status == 200)
                #expect(front.header("Content-Type") == "image/jpeg")
                #expect(front.body == card.front.sample)
            }
            let back = try await live.send(.POST, "/v1/previews?side=back", key: key, body: Data(json.utf8))
            #expect(back.status == 200)
            #expect(back.body == card.versos[0].sample)
        }
    }

    @Test(
        "a photo is stored by its digest: the same bytes, the same id; refused photos are 422",
        arguments: DatabaseKind.available)
    func photos(database: DatabaseKind) async throws {
        try await LiveService.with(database) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.photo))
            let first = try await live.send(
                .POST, "/v1/photos", key: key, body: bytes, contentType: "application/octet-stream")
            #expect(first.status == 201)
            #expect(first.json["width"] as? Int == 4032)
            #expect(first.json["height"] as? Int == 3024)
            #expect(first.json["format"] as? String == "jpeg")
            let again = try await live.send(
                .POST, "/v1/photos", key: key, body: bytes, contentType: "application/octet-stream")
            #expect(again.status == 200)
            #expect(again.json["id"] as? String == first.json["id"] as? String)
            let junk = try await live.send(
                .POST, "/v1/photos", key: key, body: Data("not an image".utf8), contentType: "application/octet-stream")
            #expect(junk.status == 422)
            #expect(junk.header("Content-Type") == "application/problem+json")
            #expect((junk.json["detail"] as? String)?.isEmpty == false)
        }
    }

    @Test(
        "keys: none or a wrong one is 401; another key's photo and card are not found",
        arguments: DatabaseKind.available)
    func keys(database: DatabaseKind) async throws {
        try await LiveService.with(database) { live in
            let alice = try await live.service.book.createKey(name: "alice").secret
            let bob = try await live.service.book.createKey(name: "bob").secret
            #expect(try await live.send(.GET, "/v1/cards", key: nil).status == 401)
            let wrong = try await live.send(.GET, "/v1/cards", key: "crk_wrong")
            #expect(wrong.status == 401)
            #expect(wrong.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            let id = try await live.upload(Self.photo, key: alice)
            let order = #"{"spec": \#(Self.spec(photo: id, recipients: 0))}"#
            let placed = try await live.send(.POST, "/v1/cards", key: alice, body: Data(order.utf8))
            #expect(placed.status == 202)
            let cardID = try #require(((placed.json["cards"] as? [[String: Any]])?.first?["id"]) as? String)
            #expect(try await live.send(.GET, "/v1/cards/\(cardID)", key: bob).status == 404)
            #expect(try await live.send(.DELETE, "/v1/cards/\(cardID)", key: bob).status == 404)
            #expect(try await live.send(.GET, "/v1/cards", key: bob).json["cards"] as? [Any] != nil)
            #expect((try await live.send(.GET, "/v1/cards", key: bob).json["cards"] as? [Any])?.isEmpty == true)
            let stolen = try await live.send(.POST, "/v1/previews", key: bob, body: Data(Self.spec(photo: id).utf8))
            #expect(stolen.status == 404)
            #expect((stolen.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "photo")
        }
    }

    @Test(
        "orders: a card per recipient, idempotent, rendered, listed by cursor, cancelled, printed",
        arguments: DatabaseKind.available)
    func ordersToPrintRun(database: DatabaseKind) async throws {
        try await LiveService.with(database) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let id = try await live.upload(Self.photo, key: key)
            let order = #"{"spec": \#(Self.spec(photo: id, recipients: 3)), "press": "eu-a6-fogra39"}"#
            let headers = [("Idempotency-Key", "order-1")]
            let placed = try await live.send(.POST, "/v1/cards", key: key, body: Data(order.utf8), headers: headers)
            #expect(placed.status == 202)
            let cards = try #require(placed.json["cards"] as? [[String: Any]])
            #expect(cards.count == 3)
            #expect(cards.map { $0["recipient"] as? Int } == [0, 1, 2])
            #expect(cards.allSatisfy { $0["status"] as? String == "queued" })
            // The same key and body: the same answer; the same key, another body: 422.
            let replay = try await live.send(.POST, "/v1/cards", key: key, body: Data(order.utf8), headers: headers)
            #expect(replay.status == 202)
            #expect(replay.body == placed.body)
            let other = #"{"spec": \#(Self.spec(photo: id, recipients: 1)), "press": "eu-a6-fogra39"}"#
            let reused = try await live.send(.POST, "/v1/cards", key: key, body: Data(other.utf8), headers: headers)
            #expect(reused.status == 422)
            #expect(reused.text.contains("Idempotency-Key"))
            let ids = cards.compactMap { $0["id"] as? String }
            for id in ids {
                let card = try await live.settled(id, key: key)
                #expect(card["status"] as? String == "ready")
                #expect(card["verdict"] as? String == "good")
                #expect(card.keys.contains("error"))
                let files = try #require(card["files"] as? [String: Any])
                let print = try await live.send(.GET, try #require(files["print"] as? String), key: key)
                #expect(print.status == 200)
                #expect(print.header("Content-Type") == "application/pdf")
                #expect(print.body.prefix(5) == Data("%PDF-".utf8))
                let sample = try await live.send(.GET, try #require(files["sample"] as? String), key: key)
                #expect(sample.header("Content-Type") == "image/jpeg")
                let image = try Fixtures.load(sample.body)
                #expect(max(image.width, image.height) == 800)
            }
            // Pages of one: every card exactly once, newest first, then null.
            var seen: [String] = []
            var cursor: String? = nil
            repeat {
                let page = try await live.send(
                    .GET, "/v1/cards?limit=1" + (cursor.map { "&after=\($0)" } ?? ""), key: key)
                #expect(page.status == 200)
                seen += (page.json["cards"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
                cursor = page.json["next"] as? String
                #expect(page.json.keys.contains("next"))
            } while cursor != nil && seen.count < 10
            #expect(Set(seen) == Set(ids))
            #expect(seen.count == 3)
            // Cancel one; the run takes the other two; a printed card cannot be cancelled.
            let cancelled = try await live.send(.DELETE, "/v1/cards/\(ids[0])", key: key)
            #expect(cancelled.status == 200)
            #expect(cancelled.json["status"] as? String == "cancelled")
            let filtered = try await live.send(.GET, "/v1/cards?status=cancelled", key: key)
            #expect((filtered.json["cards"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [ids[0]])
            let run = try await live.send(
                .POST, "/v1/print-runs", key: key, body: Data(#"{"press": "eu-a6-fogra39", "sheet": "sra3"}"#.utf8))
            #expect(run.status == 201)
            #expect(Set(run.json["cards"] as? [String] ?? []) == Set(ids[1...]))
            let sheets = try #require(run.json["sheets"] as? [String])
            #expect(sheets.count == 1)
            let sheet = try await live.send(.GET, sheets[0], key: key)
            #expect(sheet.status == 200)
            #expect(sheet.body.prefix(5) == Data("%PDF-".utf8))
            let runID = try #require(run.json["id"] as? String)
            #expect(
                try await live.send(.GET, "/v1/print-runs/\(runID)", key: key).json["sheets"] as? [String] == sheets)
            // The deposit manifest: the cards sorted by destination (Person 1 at SW1A 1AA, Person 2 at
            // SW1A 2AA, "UK" read as GB), cut-and-stack on one sheet; no name in it. Each card says
            // how the post takes it, and that it goes abroad without a sender.
            let shown = try await live.send(.GET, "/v1/cards/\(ids[1])", key: key).json
            #expect(shown["mailClass"] as? String == "postcard")
            #expect((shown["warnings"] as? [String])?.first?.hasPrefix("the recipient is abroad") == true)
            let csv = try await live.send(.GET, "/v1/print-runs/\(runID)/manifest.csv", key: key)
            #expect(csv.status == 200)
            #expect(csv.header("Content-Type")?.hasPrefix("text/csv") == true)
            #expect(
                csv.text == "sequence,card,country,postcode,mail_class,sheet,position\r\n"
                    + "1,\(ids[1]),GB,SW1A 1AA,postcard,1,1\r\n2,\(ids[2]),GB,SW1A 2AA,postcard,1,2\r\n", "\(csv.text)")
            let manifest = try await live.send(.GET, "/v1/print-runs/\(runID)/manifest.json", key: key)
            #expect(manifest.status == 200)
            #expect(manifest.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(manifest.json["countries"] as? [String: Int] == ["GB": 2])
            #expect(!manifest.text.contains("Person"))
            let missing = try await live.send(.GET, "/v1/print-runs/run_missing/manifest.csv", key: key)
            #expect(missing.status == 404)
            #expect(missing.header("Content-Type") == "application/problem+json")
            let anonymous = try await live.send(.GET, "/v1/print-runs/\(runID)/manifest.json", key: nil)
            #expect(anonymous.status == 401)
            #expect(try await live.send(.GET, "/v1/cards/\(ids[1])", key: key).json["status"] as? String == "printed")
            let refused = try await live.send(.DELETE, "/v1/cards/\(ids[1])", key: key)
            #expect(refused.status == 409)
            #expect(refused.header("Content-Type") == "application/problem+json")
            // Nothing left to print.
            let empty = try await live.send(
                .POST, "/v1/print-runs", key: key, body: Data(#"{"press": "eu-a6-fogra39", "sheet": "sra3"}"#.utf8))
            #expect(empty.status == 422)
        }
    }

    @Test("spec errors are problem+json with the field's path", arguments: DatabaseKind.available)
    func specErrors(database: DatabaseKind) async throws {
        try await LiveService.with(database) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let id = try await live.upload(Self.photo, key: key)
            let bad = #"{"version": 1, "photo": "\#(id)", "card": {"dpi": "300dpi"}}"#
            let reply = try await live.send(.POST, "/v1/previews", key: key, body: Data(bad.utf8))
            #expect(reply.status == 422)
            #expect(reply.header("Content-Type") == "application/problem+json")
            let errors = try #require(reply.json["errors"] as? [[String: Any]])
            #expect(errors.first?["field"] as? String == "card.dpi")
            #expect(reply.json["status"] as? Int == 422)
            let press = #"{"spec": \#(Self.spec(photo: id)), "press": "letterpress"}"#
            let refused = try await live.send(.POST, "/v1/cards", key: key, body: Data(press.utf8))
            #expect(refused.status == 422)
            #expect((refused.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "press")
            let notJSON = try await live.send(.POST, "/v1/cards", key: key, body: Data("{".utf8))
            #expect(notJSON.status == 400)
            #expect(notJSON.header("Content-Type") == "application/problem+json")
            let huge = try await live.send(.POST, "/v1/previews", key: key, body: Data(repeating: 32, count: 2 << 20))
            #expect(huge.status == 413)
        }
    }

    @Test("the studio's calls: a photo's size, its first placement with the window, the frames and their thumbnails")
    func studioCalls() async throws {
        try await LiveService.with(.sqlite) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let other = try await live.service.book.createKey(name: "other").secret
            let file = Fixtures.root.path + "/Tests/faces/astronaut-top-right-1200x1800.jpg"
            let id = try await live.upload(file, key: key)
            let photo = try await live.send(.GET, "/v1/photos/\(id)", key: key)
            #expect(photo.status == 200)
            #expect(photo.json["width"] as? Int == 1200 && photo.json["height"] as? Int == 1800)
            #expect(try await live.send(.GET, "/v1/photos/\(id)", key: other).status == 404)

            let spec = #"{"version": 1, "photo": "\#(id)", "frame": "travel/airmail"}"#
            let placed = try await live.send(.POST, "/v1/placements", key: key, body: Data(spec.utf8))
            #expect(placed.status == 200, "\(placed.text)")
            #expect(placed.json["reason"] as? String == "1 face kept")
            // The same numbers as the renderer's own choice, and the window of the same layout.
            let renderer = CardRenderer(catalogue: try FrameCatalogue(directory: Fixtures.root.path + "/frames"))
            let expected = try renderer.firstPlacement(
                photo: ImageData(copying: try Data(contentsOf: URL(fileURLWithPath: file)), name: "p"),
                spec: try CardSpec.parse(Data(spec.utf8), file: "spec"), specFile: "spec")
            let transform = try #require(placed.json["transform"] as? [String: Any])
            let offset = try #require(transform["offset"] as? [String: Double])
            #expect(
                expected.placement
                    == .transform(
                        scale: transform["scale"] as? Double ?? 0, rotation: transform["rotation"] as? Double ?? 9,
                        offsetX: offset["x"] ?? 9, offsetY: offset["y"] ?? 9))
            let card = try #require(placed.json["card"] as? [String: Int])
            #expect(card["width"] == expected.card.width && card["height"] == expected.card.height)
            let window = try #require(placed.json["window"] as? [String: Double])
            #expect(abs((window["x"] ?? 0) - Double(expected.window.x) / Double(expected.card.width)) < 1e-12)
            #expect(abs((window["width"] ?? 0) - Double(expected.window.width) / Double(expected.card.width)) < 1e-12)
            #expect(try await live.send(.POST, "/v1/placements", key: other, body: Data(spec.utf8)).status == 404)

            let frames = try await live.send(.GET, "/v1/frames", key: key)
            #expect(frames.status == 200)
            let list = try #require(frames.json["frames"] as? [[String: Any]])
            #expect(list.count == renderer.catalogue?.frames.count)
            let airmail = try #require(list.first { $0["id"] as? String == "travel/airmail" })
            let thumbnail = try #require(airmail["thumbnail"] as? String)
            let png = try await live.send(.GET, thumbnail + "?width=120", key: key)
            #expect(png.status == 200)
            #expect(png.header("Content-Type") == "image/png")
            let image = try Fixtures.load(png.body)
            #expect(image.width == 120)
            #expect(try await live.send(.GET, "/v1/frames/travel/nowhere/thumbnail", key: key).status == 404)
            #expect(try await live.send(.GET, thumbnail + "?width=481", key: key).status == 400)
            #expect(try await live.send(.GET, "/v1/frames", key: nil).status == 401)
        }
    }

    @Test("the studio page is served without a key, with a policy that allows nothing from elsewhere")
    func studioPage() async throws {
        try await LiveService.with(.sqlite) { live in
            let page = try await live.send(.GET, "/studio", key: nil)
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            for testID in ["photo-input", "stage", "preview", "message", "order", "status"] {
                #expect(page.text.contains("data-testid=\"\(testID)\""), "no \(testID)")
            }
            // The photo limit is the service's own.
            #expect(page.text.contains("content=\"\(DecodePolicy.default.maxFileBytes)\""))
            let policy = try #require(page.header("Content-Security-Policy"))
            #expect(policy.contains("default-src 'none'") && policy.contains("script-src 'self'"))
            #expect(!policy.contains("http"))
            #expect(page.header("X-Content-Type-Options") == "nosniff")
            let script = try await live.send(.GET, "/studio/studio.js", key: nil)
            #expect(script.status == 200 && script.header("Content-Type") == "text/javascript; charset=utf-8")
            #expect(script.text.contains("window.studio"))
            #expect(try await live.send(.GET, "/studio/studio.css", key: nil).status == 200)
            #expect(try await live.send(.GET, "/studio/other.js", key: nil).status == 404)
            #expect(try await live.send(.GET, "/studio/../studio.js", key: nil).status != 200)
            // Every file of the page's folder is served, as it is in the folder, and nothing
            // in it is fetched from another origin.
            let folder = Fixtures.root.path + "/Sources/CardService/Studio/web"
            let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            #expect(names.contains("studio.js") && names.count >= 3, "\(names)")
            for name in names where name != "index.html" {
                let served = try await live.send(.GET, "/studio/" + name, key: nil)
                #expect(served.status == 200, "\(name)")
                #expect(served.text == (try String(contentsOfFile: folder + "/" + name, encoding: .utf8)), "\(name)")
                #expect(!served.text.contains("http://") && !served.text.contains("https://"), "\(name)")
                let type = name.hasSuffix(".js") ? "text/javascript" : name.hasSuffix(".css") ? "text/css" : "?"
                #expect(served.header("Content-Type") == type + "; charset=utf-8", "\(name)")
            }
            #expect(!page.text.contains("http://") && !page.text.contains("https://"))
        }
    }

    @Test("a key over its rate is refused with 429 and Retry-After")
    func rateLimit() async throws {
        // One request an hour, a burst of one: the first is served, the next four refused (no
        // token comes back within the test, however slow the machine).
        try await LiveService.with(.sqlite, requestsPerSecond: 1.0 / 3600) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let other = try await live.service.book.createKey(name: "other").secret
            let start = ContinuousClock.now
            var statuses: [Int] = []
            for _ in 0..<5 { statuses.append(try await live.send(.GET, "/v1/cards", key: key).status) }
            #expect(statuses == [200, 429, 429, 429, 429])
            let refusal = try await live.send(.GET, "/v1/cards", key: key)
            let elapsed = Double((ContinuousClock.now - start).components.seconds) + 1
            #expect(refusal.status == 429)
            #expect(refusal.header("Content-Type") == "application/problem+json")
            // The hour less what has passed since the first request, bounded by clock reads
            // taken around the requests (load cannot decide it).
            let retryAfter = Int(refusal.header("Retry-After") ?? "") ?? 0
            #expect((Int(3600 - elapsed)...3600).contains(retryAfter), "Retry-After \(retryAfter) after \(elapsed) s")
            // Another key has its own rate.
            #expect(try await live.send(.GET, "/v1/cards", key: other).status == 200)
        }
    }

    @Test("the OpenAPI document is served, whole paths under /v1, and matches openapi.yaml")
    func openAPIDocument() async throws {
        try await LiveService.with(.sqlite) { live in
            let reply = try await live.send(.GET, "/v1/openapi.json", key: nil)
            #expect(reply.status == 200)
            let document = reply.json
            #expect(document["openapi"] as? String == "3.1.0")
            let paths = try #require(document["paths"] as? [String: Any])
            #expect(paths.keys.allSatisfy { $0.hasPrefix("/v1/") })
            #expect(paths.keys.contains("/v1/cards/{id}"))
            let yaml = Fixtures.root.path + "/Sources/CardService/API/openapi.yaml"
            let expected = try Tools.run(
                "/usr/bin/python3", [Fixtures.root.path + "/scripts/openapi-json.py", yaml])
            #expect(
                expected.stdoutText.contains(reply.text),
                "OpenAPIDocument.swift is stale: run scripts/generate-openapi.sh")
        }
    }
}
