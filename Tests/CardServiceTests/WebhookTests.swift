import Foundation
import NIOHTTP1
import TestSupport
import Testing

@testable import CardService

/// Webhooks from the outbox, received by `Tests/webhooks/receiver.py`, which verifies every
/// message with Standard Webhooks' own library: each event arrives, signed, a card's events in
/// order, through a receiver that is down for a while, answers 500, or is too slow; a rotated
/// secret signs beside the new one; an endpoint failing too long is disabled and says so; a
/// replay sends again. On SQLite and on PostgreSQL.
@Suite(
    .libvips,
    .enabled(
        if: FileManager.default.fileExists(atPath: Fixtures.photo("photos/phone-4032x3024.jpg")),
        "../shared/corpus is absent"),
    .enabled(if: WebhookReceiver.python != nil, Comment(rawValue: WebhookReceiver.missing)))
struct WebhookTests {
    /// Quick retries and a short timeout, so that a test sees several attempts.
    static var quick: WebhookSettings {
        var settings = WebhookSettings()
        settings.allowLoopback = true
        settings.retries = Array(repeating: .milliseconds(300), count: 40)
        settings.timeout = .seconds(1)
        settings.idlePoll = .milliseconds(20)
        return settings
    }

    @Test("the specification's example: our signature is the one it gives")
    func specificationExample() {
        // Standard Webhooks' worked example (its specification and reference libraries' tests).
        let header = WebhookSignature.header(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: Data(#"{"test": 2432232314}"#.utf8),
            secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"])
        #expect(header == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        let secret = WebhookSignature.newSecret()
        #expect(secret.hasPrefix("whsec_") && WebhookSignature.key(of: secret)?.count == 24)
        #expect(WebhookSignature.newSecret() != secret)
    }

    @Test("docs/service.md's verification examples (Python, JavaScript) accept our message and refuse a changed one")
    func documentedVerifiers() throws {
        let doc = try String(contentsOfFile: Fixtures.root.path + "/docs/service.md", encoding: .utf8)
        let secret = WebhookSignature.newSecret()
        let body = #"{"data":{"id":"card_1"},"timestamp":"2026-11-27T10:00:00.000Z","type":"card.ready"}"#
        let stamp = Int(Date().timeIntervalSince1970)
        let signature = WebhookSignature.header(
            id: "evt_1", timestamp: stamp, body: Data(body.utf8), secrets: [WebhookSignature.newSecret(), secret])
        let headers =
            #"{"webhook-id": "evt_1", "webhook-timestamp": "\#(stamp)", "webhook-signature": "\#(signature)"}"#
        for (language, runner, call) in [
            (
                "python", "/usr/bin/python3",
                "import json, sys\nh = json.loads(sys.argv[1])\nprint(verify(sys.argv[2], h, sys.argv[3].encode()), verify(sys.argv[2], h, sys.argv[3].encode() + b' '))"
            ),
            (
                "javascript", "/usr/bin/node",
                "const h = JSON.parse(process.argv[2]);\nconsole.log(verify(process.argv[3], h, Buffer.from(process.argv[4])) ? 'True' : 'False', verify(process.argv[3], h, Buffer.from(process.argv[4] + ' ')) ? 'True' : 'False');"
            ),
        ] {
            let block = try #require(
                doc.components(separatedBy: "```\(language)\n").dropFirst().first?
                    .components(separatedBy: "```").first, "no \(language) example in docs/service.md")
            guard FileManager.default.isExecutableFile(atPath: runner) else {
                Issue.record("\(runner) is not installed: the \(language) example cannot be run")
                continue
            }
            let script = try Fixtures.scratchDirectory("verify") + "/verify." + (language == "python" ? "py" : "js")
            try (block + "\n" + call.replacingOccurrences(of: "\\n", with: "\n")).write(
                toFile: script, atomically: true, encoding: .utf8)
            let run = try Tools.run(
                runner,
                language == "python"
                    ? ["-c", "exec(open('\(script)').read())", headers, secret, body] : [script, headers, secret, body])
            #expect(
                run.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "True False",
                "\(language): \(run.stdoutText) \(run.stderr)")
        }
    }

    @Test("endpoints must be https on a public address; loopback only when the server allows")
    func addresses() {
        let strict = WebhookAddress(allowLoopback: false)
        let loopback = WebhookAddress(allowLoopback: true)
        for url in [
            "http://93.184.215.14/hooks", "https://10.0.0.1/x", "https://192.168.1.20/", "https://172.20.0.1/",
            "https://169.254.169.254/latest/meta-data", "https://100.64.0.1/", "https://0.0.0.0/", "https://[::1]/",
            "https://[fe80::1]/", "https://[fd00::1]/", "https://[::ffff:10.1.2.3]/", "https://127.0.0.1/",
            "https://localhost:8443/", "ftp://93.184.215.14/", "https://user:pw@93.184.215.14/", "/relative",
            "https://no-such-host.invalid/", "HTTP://93.184.215.14/", "https://[::7f00:1]/", "https://[2002:a00:1::]/",
            "https://[2001:0:4136:e378::1]/", "https://[fec0::1]/", "https://203.0.113.9/", "https://2130706433/",
            "https://0x7f.1/", "https://93.184.215.14@10.0.0.1/",
        ] {
            #expect(strict.refusal(url) != nil, "\(url)")
        }
        #expect(strict.refusal("https://93.184.215.14/hooks") == nil)
        #expect(strict.refusal("https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/") == nil)
        #expect(loopback.refusal("http://127.0.0.1:9/events") == nil)
        #expect(loopback.refusal("https://[::1]:9/") == nil)
        #expect(loopback.refusal("http://10.0.0.1/") != nil)
        #expect(loopback.refusal("http://93.184.215.14/") != nil)
    }

    @Test(
        "every event arrives signed, a card's in order, through a receiver down, failing, too slow",
        arguments: DatabaseKind.available)
    func throughFaults(database: DatabaseKind) async throws {
        try await LiveService.with(database, webhooks: Self.quick) { live in
            let directory = try Fixtures.scratchDirectory("receiver")
            let first = try WebhookReceiver(directory: directory)
            let key = try await live.service.book.createKey(name: "app").secret
            let made = try await live.send(
                .POST, "/v1/webhook-endpoints", key: key,
                body: Data(#"{"url": "\#(first.url)", "description": "the app"}"#.utf8))
            #expect(made.status == 201, "\(made.text)")
            let secret = try #require(made.json["secret"] as? String)
            #expect(secret.hasPrefix("whsec_"))
            let endpointID = try #require(made.json["id"] as? String)
            try first.trust([secret])
            let shown = try await live.send(.GET, "/v1/webhook-endpoints/\(endpointID)", key: key)
            #expect(shown.status == 200 && shown.json["secret"] == nil && shown.json["disabled"] is NSNull)
            #expect(
                (try await live.send(.GET, "/v1/webhook-endpoints", key: key).json["endpoints"] as? [Any])?.count == 1)

            // Down: the order's events wait, and arrive once the receiver is back.
            first.stop()
            let photo = try await live.upload(ServiceAPITests.photo, key: key)
            let order = #"{"spec": \#(ServiceAPITests.spec(photo: photo, recipients: 2)), "press": "eu-a6-fogra39"}"#
            let placed = try await live.send(.POST, "/v1/cards", key: key, body: Data(order.utf8))
            let ids = try #require(placed.json["cards"] as? [[String: Any]]).compactMap { $0["id"] as? String }
            for id in ids { #expect(try await live.settled(id, key: key)["status"] as? String == "ready") }
            let receiver = try WebhookReceiver(directory: directory, port: first.port)
            #expect(await Self.received(receiver, 4), "\(receiver.requests())")

            // Answering 500: retried until it takes them.
            try receiver.answer("500")
            let run = try await live.send(
                .POST, "/v1/print-runs", key: key, body: Data(#"{"press": "eu-a6-fogra39", "sheet": "sra3"}"#.utf8))
            let runID = try #require(run.json["id"] as? String)
            #expect(
                await Poll.until(seconds: 60) {
                    receiver.requests().filter { $0["answered"] as? Int == 500 }.count >= 3
                })
            try receiver.answer("ok")
            #expect(await Self.received(receiver, 7), "\(receiver.requests())")

            // Too slow: the attempt times out (1 s here) and is made again.
            try receiver.answer("slow 2")
            #expect(try await live.send(.POST, "/v1/print-runs/\(runID)/mailed", key: key).status == 200)
            #expect(await Poll.until(seconds: 60) { receiver.requests().count >= Self.firsts(receiver).count + 3 })
            try receiver.answer("ok")
            #expect(await Self.received(receiver, 10), "\(receiver.requests())")

            // Every message was verified by the reference library; every event arrived.
            let requests = receiver.requests()
            #expect(requests.allSatisfy { $0["verified"] as? Bool == true }, "\(requests)")
            let events = try await EventTests.events(live, key: key, limit: 100).events
            #expect(events.count == 10)
            let firsts = Self.firsts(receiver)
            #expect(Set(firsts.compactMap { $0["id"] as? String }) == Set(events.compactMap { $0["id"] as? String }))
            // Each card's events in the order it lived them.
            for id in ids {
                let lived = firsts.filter { $0["subject"] as? String == id }.map { $0["type"] as? String }
                #expect(lived == ["card.queued", "card.ready", "card.printed", "card.mailed"], "\(lived)")
            }
            #expect(
                firsts.filter { $0["subject"] as? String == runID }.map { $0["type"] as? String }
                    == ["print_run.created", "print_run.mailed"])
            // The receiver logs an answer as it sends it: the sender records it a moment later.
            #expect(await Poll.until(seconds: 30) { (try? await live.service.book.pendingDeliveries()) == 0 })
            // The metrics count this node's attempts by outcome.
            let metrics = try await live.send(.GET, "/metrics", key: nil).text
            for outcome in ["delivered", "retried"] {
                #expect(metrics.contains("cardrender_webhook_deliveries_total{outcome=\"\(outcome)\"}"), "\(metrics)")
            }
        }
    }

    @Test(
        "a rotated secret signs beside the new; failing too long disables; a replay sends again",
        arguments: DatabaseKind.available)
    func rotationDisablingReplay(database: DatabaseKind) async throws {
        var settings = Self.quick
        settings.disableAfter = .milliseconds(1500)
        try await LiveService.with(database, webhooks: settings) { live in
            let receiver = try WebhookReceiver(directory: try Fixtures.scratchDirectory("receiver"))
            let key = try await live.service.book.createKey(name: "app").secret
            let made = try await live.send(
                .POST, "/v1/webhook-endpoints", key: key,
                body: Data(
                    #"{"url": "\#(receiver.url)", "types": ["card.queued", "card.ready", "card.cancelled"]}"#.utf8))
            #expect(made.status == 201, "\(made.text)")
            let endpointID = try #require(made.json["id"] as? String)
            let old = try #require(made.json["secret"] as? String)
            let rotated = try await live.send(.POST, "/v1/webhook-endpoints/\(endpointID)/secret", key: key)
            #expect(rotated.status == 200)
            let new = try #require(rotated.json["secret"] as? String)
            #expect(new != old && new.hasPrefix("whsec_"))
            // Only the new secret, then only the old: both verify (two signatures meanwhile).
            try receiver.trust([new])
            let photo = try await live.upload(ServiceAPITests.photo, key: key)
            let order = #"{"spec": \#(ServiceAPITests.spec(photo: photo, recipients: 1))}"#
            let placed = try await live.send(.POST, "/v1/cards", key: key, body: Data(order.utf8))
            let id = try #require((placed.json["cards"] as? [[String: Any]])?.first?["id"] as? String)
            #expect(await Self.received(receiver, 1))
            try receiver.trust([old])
            _ = try await live.settled(id, key: key)
            #expect(await Self.received(receiver, 2))
            #expect(receiver.requests().allSatisfy { $0["signatures"] as? Int == 2 && $0["verified"] as? Bool == true })

            // Failing for longer than allowed (1.5 s here): disabled, and an event says so.
            try receiver.trust([new])
            try receiver.answer("500")
            #expect(try await live.send(.DELETE, "/v1/cards/\(id)", key: key).status == 200)
            let disabled = await Poll.until(seconds: 60) {
                let endpoint = try? await live.send(.GET, "/v1/webhook-endpoints/\(endpointID)", key: key).json
                return endpoint?["disabled"] is String
            }
            #expect(disabled)
            let told = try await EventTests.events(live, key: key, limit: 100, query: "&type=webhook_endpoint.disabled")
            let data = try #require(told.events.first?["data"] as? [String: Any])
            #expect(data["id"] as? String == endpointID && data["secret"] == nil && data["disabled"] is String)
            let attempts = receiver.requests().count
            // The cancellation's delivery is still pending, with the attempts it failed.
            let failing = try await live.service.configuration.database.execute(
                "SELECT attempts FROM deliveries WHERE endpoint = $1 AND status = 'pending'", [.text(endpointID)])
            let triedBefore = try #require(failing.first?.int("attempts"))
            #expect(failing.count == 1 && triedBefore >= 2, "\(failing.count) pending, \(triedBefore) attempts")
            // Replay: enabled again, the events since the start that were delivered sent again
            // (its types only); the pending one keeps its attempts and its wait (a replay never
            // hurries a failing endpoint).
            try receiver.answer("ok")
            let replay = try await live.send(
                .POST, "/v1/webhook-endpoints/\(endpointID)/replay", key: key,
                body: Data(#"{"since": "2020-01-01T00:00:00Z"}"#.utf8))
            #expect(replay.status == 202, "\(replay.text)")
            #expect(replay.json["events"] as? Int == 2, "\(replay.text)")
            let kept = try await live.service.configuration.database.execute(
                """
                SELECT d.attempts FROM deliveries d JOIN events e ON e.id = d.event
                WHERE d.endpoint = $1 AND e.type = 'card.cancelled'
                """, [.text(endpointID)])
            #expect(kept.first?.int("attempts").map { $0 >= triedBefore } == true, "the attempts are not reset")
            // Replays are rate-limited per endpoint.
            let soon = try await live.send(
                .POST, "/v1/webhook-endpoints/\(endpointID)/replay", key: key,
                body: Data(#"{"since": "2020-01-01T00:00:00Z"}"#.utf8))
            #expect(soon.status == 429 && Int(soon.header("Retry-After") ?? "") ?? 0 >= 1, "\(soon.text)")
            #expect(
                await Poll.until(seconds: 60) {
                    receiver.requests().dropFirst(attempts).filter { $0["answered"] as? Int == 204 }.count == 3
                })
            let again = receiver.requests().dropFirst(attempts).compactMap { $0["type"] as? String }
            #expect(again == ["card.queued", "card.ready", "card.cancelled"], "\(again)")
            #expect(
                try await live.send(.GET, "/v1/webhook-endpoints/\(endpointID)", key: key).json["disabled"] is NSNull)
            // Removed: nothing more is sent to it; another key cannot see it.
            let other = try await live.service.book.createKey(name: "other").secret
            #expect(try await live.send(.GET, "/v1/webhook-endpoints/\(endpointID)", key: other).status == 404)
            #expect(try await live.send(.DELETE, "/v1/webhook-endpoints/\(endpointID)", key: key).status == 204)
            #expect(try await live.send(.GET, "/v1/webhook-endpoints/\(endpointID)", key: key).status == 404)
        }
    }

    @Test(
        "an endpoint on a private address, or not https, is refused with the reason", arguments: DatabaseKind.available)
    func refusedAddresses(database: DatabaseKind) async throws {
        try await LiveService.with(database) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            for url in [
                "https://10.1.2.3/hooks", "http://93.184.215.14/", "https://127.0.0.1:9/", "https://[fe80::1]/",
            ] {
                let refused = try await live.send(
                    .POST, "/v1/webhook-endpoints", key: key, body: Data(#"{"url": "\#(url)"}"#.utf8))
                #expect(refused.status == 422, "\(url): \(refused.text)")
                #expect((refused.json["detail"] as? String)?.contains("url") == true, "\(refused.text)")
            }
            let unknown = try await live.send(
                .POST, "/v1/webhook-endpoints", key: key,
                body: Data(#"{"url": "https://93.184.215.14/", "types": ["card.lost"]}"#.utf8))
            #expect(unknown.status == 400 || unknown.status == 422, "\(unknown.text)")
        }
    }

    /// Waits until `receiver` has answered 204 to `count` distinct events.
    static func received(_ receiver: WebhookReceiver, _ count: Int) async -> Bool {
        await Poll.until(seconds: 90) { firsts(receiver).count >= count }
    }

    /// The first accepted request of each event, in the order they came.
    static func firsts(_ receiver: WebhookReceiver) -> [[String: Any]] {
        var seen = Set<String>()
        return receiver.requests().filter {
            guard $0["answered"] as? Int == 204, let id = $0["id"] as? String else { return false }
            return seen.insert(id).inserted
        }
    }
}
