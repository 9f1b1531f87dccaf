import CardKit
import CardService
import Crypto
import Foundation
import ImageCore
import NIOHTTP1
import TestSupport
import Testing

/// The studio page (/studio) driven in headless Chromium by Tests/browser/studio_driver.py
/// (Debian's chromium, chromium-driver and python3-selenium) against the service running
/// in this process: gestures as real mouse, wheel and touch events, the keyboard alone, the
/// error paths, and the phone: the layout at two phones' sizes and a laptop's with touch, an
/// HEIC photo's moving copy, recipients and their backs, and an axe-core audit. Every step's
/// screenshot is kept in .build/test-artifacts/studio/.
/// What the studio's browser tests need, found before the suite is declared.
enum StudioBrowser {
    static let driver = Fixtures.root.path + "/Tests/browser/studio_driver.py"
    static let artifacts = Fixtures.root.path + "/.build/test-artifacts/studio"
    /// `scripts/test.sh` sets CARDRENDER_REQUIRE_BROWSER=1: a missing browser fails there.
    static let required = ProcessInfo.processInfo.environment["CARDRENDER_REQUIRE_BROWSER"] == "1"

    /// What is missing to drive a browser here, or nil.
    static let missing: String? = {
        for file in ["/usr/bin/chromium", "/usr/bin/chromedriver", "/usr/bin/python3"]
        where !FileManager.default.isExecutableFile(atPath: file) {
            return "\(file) is not installed (scripts/setup-tests.sh installs it): the studio's browser tests skipped"
        }
        if (try? Tools.run("/usr/bin/python3", ["-c", "import selenium"]))?.status != 0 {
            return "python3-selenium is not installed: the studio's browser tests skipped"
        }
        return nil
    }()
    static let skipped = Comment(rawValue: missing ?? "")

    /// The viewports the phone scenarios run at (CSS pixels, device scale factor 1, touch):
    /// two phones and a laptop.
    static let viewports = ["360x740", "390x844", "1280x800"]

    /// axe-core's axe.min.js, from PyPI's axe-core-python that scripts/setup-tests.sh installs
    /// into .build/services/axe-core, or nil.
    static let axe: String? = {
        let lib = Fixtures.root.path + "/.build/services/axe-core/lib"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? []
        for version in versions.sorted() where version.hasPrefix("python3") {
            let path = lib + "/" + version + "/site-packages/axe_core_python/axe.min.js"
            if FileManager.default.fileExists(atPath: path) { return path }
        }
        return nil
    }()
    static let axeSkipped = Comment(
        rawValue:
            "axe-core is not installed (scripts/setup-tests.sh installs it into .build/services/axe-core): the studio's accessibility audit skipped"
    )
}

@Suite(
    .libvips, .serialized, .enabled(if: StudioBrowser.missing == nil || StudioBrowser.required, StudioBrowser.skipped))
struct StudioBrowserTests {
    /// Runs one scenario of the driver; its result.json, or an issue with its failure. Its
    /// screenshots go to the artifacts' `folder` (the scenario's name unless given).
    func drive(
        _ scenario: String, live: LiveService, key: String, photo: String, _ extra: [String] = [],
        folder: String? = nil
    ) async throws -> [String: Any] {
        try #require(StudioBrowser.missing == nil, "\(StudioBrowser.missing ?? "")")
        let out = StudioBrowser.artifacts + "/" + (folder ?? scenario)
        try? FileManager.default.removeItem(atPath: out)
        let arguments =
            [
                "600", "/usr/bin/python3", StudioBrowser.driver, scenario, "http://127.0.0.1:\(live.port)", key, photo,
                out,
            ]
            + extra
        let run = try await Tools.onWorkerThread { try Tools.run("/usr/bin/timeout", arguments) }
        let data = try Data(contentsOf: URL(fileURLWithPath: out + "/result.json"))
        let result = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(run.status == 0, "studio_driver \(scenario): \(result["failure"] ?? run.stderr)")
        #expect(result["failure"] == nil, "\(result["failure"] ?? "")")
        return result
    }

    /// The ordered card's sample from the service, which must be the preview the page last
    /// showed, and the sample `cardrender render` writes for the spec the page sent.
    func checkFinalSample(_ result: [String: Any], photo: String, live: LiveService, key: String) async throws {
        let card = try #require(result["card"] as? [String: Any])
        #expect(card["status"] as? String == "ready")
        let files = try #require(card["files"] as? [String: Any])
        let path = try #require(files["sample"] as? String)
        let sample = try await live.send(.GET, path, key: key)
        #expect(sample.status == 200)
        let digest = SHA256.hash(data: sample.body).map { String(format: "%02x", $0) }.joined()
        #expect(digest == result["preview_digest"] as? String, "the ordered sample is not the last preview shown")

        // The batch: the photo and the page's spec (its photo named as a file) in a folder.
        var spec = try #require(result["ordered_spec"] as? [String: Any])
        spec["photo"] = "photo.jpg"
        let scratch = try Fixtures.scratchDirectory("studio-batch")
        try FileManager.default.createDirectory(atPath: scratch + "/in", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: photo, toPath: scratch + "/in/photo.jpg")
        try JSONSerialization.data(withJSONObject: spec).write(
            to: URL(fileURLWithPath: scratch + "/in/studio.card.json"))
        let render = try await Tools.onWorkerThread {
            try Tools.run(Tools.cardrender, ["render", scratch + "/in", "--out", scratch + "/out", "-q"])
        }
        #expect(render.status == 0, "\(render.stderr)")
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: scratch + "/out/report.json")))
                as? [String: Any])
        let cards = try #require(report["cards"] as? [[String: Any]])
        // The photo alone is a card too (photos without a spec render as they are): the spec's.
        let studio = cards.first { ($0["spec"] as? String)?.hasSuffix("studio.card.json") == true }
        let outputs = try #require(studio?["outputs"] as? [String: Any], "\(cards)")
        let written = try Data(
            contentsOf: URL(fileURLWithPath: scratch + "/out/" + (outputs["sample"] as? String ?? "?")))
        #expect(written == sample.body, "the ordered sample is not the sample `cardrender render` writes")
    }

    @Test(
        "a corpus photo stored turned: a frame, drag, pinch, two-finger turn, the turn handle, wheel, an emoji message, a recipient, an effect, order; the sample is the batch's"
    )
    func gestures() async throws {
        let photo = Fixtures.photo("orientation/Portrait_6.jpg")  // stored turned: EXIF orientation 6
        try #require(FileManager.default.fileExists(atPath: photo), "../shared/corpus is absent")
        try await LiveService.with(.sqlite) { live in
            let key = try await live.service.book.createKey(name: "studio").secret
            let result = try await drive("gestures", live: live, key: key, photo: photo)
            // The driver checked each gesture's numbers; the spec sent has all of them.
            let spec = try #require(result["ordered_spec"] as? [String: Any])
            let transform = try #require(spec["transform"] as? [String: Any])
            #expect((transform["rotation"] as? Double).map { abs($0 - 27) < 1 } == true, "\(transform)")
            #expect((transform["scale"] as? Double ?? 0) > 2.2, "\(transform)")
            #expect(spec["frame"] as? String == "travel/airmail")
            #expect((spec["effect"] as? [String: Any])?["name"] as? String == "sepia")
            let message = try #require(spec["message"] as? [String: Any])
            #expect((message["text"] as? String)?.contains("🚀🌍") == true)
            #expect((spec["recipients"] as? [Any])?.count == 1)
            // The live copy is upright (the photo is stored turned) and at most 1600 px long.
            let copy = try #require(result["live_copy"] as? [Int])
            #expect(copy[0] < copy[1] && max(copy[0], copy[1]) <= 1600, "\(copy)")
            let timings = try #require(result["timings"] as? [Double])
            #expect(timings.count >= 4, "the page timed \(timings.count) gestures")
            try await checkFinalSample(result, photo: photo, live: live, key: key)
        }
    }

    @Test("ordering from the keyboard alone: Tab, arrows, + and ], typing, Enter")
    func keyboard() async throws {
        let photo = Fixtures.root.path + "/Tests/faces/two-astronauts-2400x1200.jpg"
        try await LiveService.with(.sqlite) { live in
            let key = try await live.service.book.createKey(name: "studio").secret
            let result = try await drive("keyboard", live: live, key: key, photo: photo)
            #expect(result["placement"] as? String == "2 faces kept")
            try await checkFinalSample(result, photo: photo, live: live, key: key)
        }
    }

    @Test("refused uploads at once, the service's words at the message, an order kept through an outage")
    func errors() async throws {
        let photo = Fixtures.root.path + "/Tests/faces/astronaut-512x512.jpg"
        try await LiveService.with(.sqlite, maxPhotoBytes: 3_000_000) { live in
            let key = try await live.service.book.createKey(name: "studio").secret
            let scratch = try Fixtures.scratchDirectory("studio-errors")
            let notes = scratch + "/holiday-notes.jpg"
            try Data(String(repeating: "not a photo\n", count: 20).utf8).write(to: URL(fileURLWithPath: notes))
            let large = scratch + "/large.jpg"
            var bytes = Data([0xFF, 0xD8, 0xFF, 0xE0])
            bytes.append(Data(repeating: 7, count: 3_200_000))
            try bytes.write(to: URL(fileURLWithPath: large))
            let damaged = Fixtures.photo("broken/corrupted-3648x2736.jpg")
            let result = try await drive("errors", live: live, key: key, photo: photo, [notes, large, damaged])
            #expect((result["damaged"] as? String)?.contains("damaged") == true, "\(result["damaged"] ?? "")")
            #expect((result["not_an_image"] as? String)?.contains("holiday-notes.jpg is not an image") == true)
            #expect((result["too_large"] as? String)?.contains("up to 2.9 MB") == true, "\(result["too_large"] ?? "")")
            // In the page's words: the field as its label reads, never the spec's path.
            #expect(
                (result["too_long"] as? String)?.hasPrefix("Message: has 15 lines") == true,
                "\(result["too_long"] ?? "")")
            #expect((result["no_font"] as? String)?.contains("U+F0000") == true)
            #expect((result["offline"] as? String)?.contains("Nothing is lost") == true)
            let spec = try #require(result["ordered_spec"] as? [String: Any])
            #expect((spec["message"] as? [String: Any])?["text"] as? String == "Kept through the outage")
            #expect((result["card"] as? [String: Any])?["status"] as? String == "ready")
            // The order sent during the outage reached the service once it was back: one card.
            let listed = try await live.send(.GET, "/v1/cards", key: key)
            #expect((listed.json["cards"] as? [Any])?.count == 1)
            // The draft came back after a reload.
            #expect(result["restored_message"] as? String == "Kept through the outage")
            try await checkFinalSample(result, photo: photo, live: live, key: key)
        }
    }

    @Test(
        "at two phones' sizes and a laptop's, with touch: nothing wider than the screen, every control 44 px or more, the card in view while a frame, an effect and a size are chosen, one picture during a gesture",
        arguments: StudioBrowser.viewports)
    func layout(viewport: String) async throws {
        let photo = Fixtures.root.path + "/Tests/faces/astronaut-512x512.jpg"
        try await LiveService.with(.sqlite) { live in
            let key = try await live.service.book.createKey(name: "studio").secret
            let result = try await drive(
                "layout", live: live, key: key, photo: photo, [viewport], folder: "layout-\(viewport)")
            let size = viewport.split(separator: "x").compactMap { Int($0) }
            #expect(result["viewport"] as? [Int] == size, "\(result["viewport"] ?? "")")
            // The driver failed on any element past the edge or any small target; each step was looked at.
            let overflow = try #require(result["overflow"] as? [[String: Any]])
            #expect(
                overflow.count >= 6 && overflow.allSatisfy { ($0["past"] as? [Any])?.isEmpty == true }, "\(overflow)")
            let targets = try #require(result["targets"] as? [[String: Any]])
            #expect(targets.count >= 4 && targets.allSatisfy { ($0["small"] as? [Any])?.isEmpty == true }, "\(targets)")
            let pictures = try #require(result["one_picture"] as? [[String: Any]])
            #expect((pictures.first?["samples"] as? [Any])?.count == 6, "\(pictures)")
            #expect((result["card"] as? [String: Any])?["status"] as? String == "ready")
        }
    }

    @Test("an HEIC photo, which Chromium cannot decode, moves under the finger: its moving copy is the service's JPEG")
    func heic() async throws {
        let photo = Fixtures.photo("photos/iphone13-3024x4032.heic")
        try #require(FileManager.default.fileExists(atPath: photo), "../shared/corpus is absent")
        try await LiveService.with(.sqlite) { live in
            let key = try await live.service.book.createKey(name: "studio").secret
            let result = try await drive("heic", live: live, key: key, photo: photo, ["390x844"])
            let copy = try #require(result["live_copy"] as? [String: Any])
            #expect(copy["source"] as? String == "service")
            // Upright (the photo is a portrait) and at most 1600 px long.
            let width = copy["width"] as? Int ?? 0
            let height = copy["height"] as? Int ?? 0
            #expect(width < height && height <= 1600, "\(copy)")
            #expect((result["copy_request"] as? String)?.contains("?width=\(width)") == true)
            let finger = try #require(result["finger_moved"] as? Double)
            let moved = try #require(result["copy_moved"] as? Double)
            #expect(abs(finger - moved) < 1.5, "the finger moved \(finger) px, the copy \(moved) px")
        }
    }

    @Test(
        "the turn button from the keyboard, a refused recipient left out of the list in words for people, every recipient's back, a reload keeping a half-typed recipient and the moving copy, each card's files"
    )
    func recipients() async throws {
        let photo = Fixtures.root.path + "/Tests/faces/astronaut-512x512.jpg"
        try await LiveService.with(.sqlite) { live in
            let key = try await live.service.book.createKey(name: "studio").secret
            let result = try await drive("recipients", live: live, key: key, photo: photo, ["390x844"])
            let turned = try #require(result["turn_button"] as? [String: Any])
            #expect(turned["after"] as? Double == 180 || turned["after"] as? Int == 180, "\(turned)")
            let refused = try #require(result["refused_recipient"] as? String)
            #expect(refused.hasPrefix("Recipient 3, name: ") && refused.contains("Shorten"), "\(refused)")
            #expect(!refused.contains("recipients[") && !refused.contains("spec:"), "\(refused)")

            // Each back shown is the service's back of the card with that recipient alone.
            let backs = try #require(result["backs"] as? [[String: Any]])
            #expect(backs.count == 2)
            for (index, back) in backs.enumerated() {
                let spec = try #require(back["spec"] as? [String: Any])
                let recipients = try #require(spec["recipients"] as? [[String: Any]])
                #expect(recipients.count == 1 && back["recipient"] as? Int == index, "\(back)")
                let reply = try await live.send(
                    .POST, "/v1/previews?side=back", key: key, body: try JSONSerialization.data(withJSONObject: spec))
                #expect(reply.status == 200, "\(reply.text)")
                let digest = SHA256.hash(data: reply.body).map { String(format: "%02x", $0) }.joined()
                #expect(digest == back["digest"] as? String, "recipient \(index + 1)'s back is not the service's")
            }
            #expect(backs[0]["digest"] as? String != backs[1]["digest"] as? String)

            #expect(result["kept_recipient"] as? [String: String] == ["name": "Thomas Pesquet", "city": "Rouen"])
            #expect((result["live_copy_after_reload"] as? [String: Any])?["source"] as? String == "service")

            // One card per recipient; the print file downloaded from the page is card 2's.
            let cards = try #require(result["cards"] as? [[String: Any]])
            #expect(cards.count == 2 && cards.allSatisfy { $0["status"] as? String == "ready" })
            let files = try #require(cards.last?["files"] as? [String: Any])
            let printFile = try await live.send(.GET, try #require(files["print"] as? String), key: key)
            #expect(printFile.status == 200)
            let downloaded = try #require(result["downloaded"] as? [String: Any])
            let name = try #require(downloaded["name"] as? String)
            let bytes = try Data(
                contentsOf: URL(fileURLWithPath: StudioBrowser.artifacts + "/recipients/downloads/" + name))
            #expect(bytes == printFile.body, "the downloaded print file is not the card's")
        }
    }

    @Test(
        "axe-core finds no accessibility violation at two phones' sizes and a laptop's",
        .enabled(if: StudioBrowser.axe != nil || StudioBrowser.required, StudioBrowser.axeSkipped),
        arguments: StudioBrowser.viewports)
    func audit(viewport: String) async throws {
        let axe = try #require(StudioBrowser.axe, StudioBrowser.axeSkipped)
        let photo = Fixtures.root.path + "/Tests/faces/astronaut-512x512.jpg"
        try await LiveService.with(.sqlite) { live in
            let key = try await live.service.book.createKey(name: "studio").secret
            let result = try await drive(
                "audit", live: live, key: key, photo: photo, [viewport, axe], folder: "audit-\(viewport)")
            let audits = try #require(result["axe"] as? [[String: Any]])
            #expect(audits.count == 5, "\(audits)")
            for audit in audits {
                #expect((audit["violations"] as? [Any])?.isEmpty == true, "\(audit)")
            }
        }
    }
}
