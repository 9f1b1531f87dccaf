import Foundation
import TestSupport
import Testing

@testable import CardService

/// `cardrender serve --data` and `cardrender keys` as an operator runs them, as processes:
/// keys listed, revoked and rotated while the service runs, the log's lines for each card's
/// transitions and never a key from a query string, the service's metrics, and a service
/// that refuses to start without its frames or press profiles.
@Suite(
    .serialized, .libvips,
    .enabled(if: FileManager.default.fileExists(atPath: ServiceAPITests.photo), "../shared/corpus is absent"))
struct ServeOperationsTests {
    /// A running `serve --data`: its process, its base URL and its log file.
    struct Serve {
        let process: StoppableProcess
        let base: String
        let log: String

        var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        /// Starts `serve --data DATA` with `extra` arguments, its output in `log`.
        static func start(data: String, scratch: String, extra: [String] = [], log: String? = nil) async throws
            -> Serve
        {
            let log = log ?? scratch + "/serve.log"
            let process = try StoppableProcess(
                Tools.cardrender, ["serve", "--data", data, "--port", "0", "--cache", scratch + "/cache"] + extra,
                environment: ["XDG_CACHE_HOME": scratch + "/xdg"], output: log)
            var port: Int?
            _ = await Poll.until(seconds: 120) {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                if let range = text.range(of: "on http://127.0.0.1:") {
                    port = Int(text[range.upperBound...].prefix { $0.isNumber })
                }
                return port != nil
            }
            guard let port else {
                process.kill()
                throw Tools.ToolError(
                    message: "serve did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
            }
            return Serve(process: process, base: "http://127.0.0.1:\(port)", log: log)
        }
    }

    /// `curl` against the service: the status and the body.
    static func curl(_ arguments: [String]) throws -> (status: Int, body: String) {
        let run = try Tools.run("/usr/bin/curl", ["-s", "-w", "\n%{http_code}"] + arguments)
        let lines = run.stdoutText.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    static func keys(_ arguments: [String], data: String) throws -> Tools.Run {
        try Tools.run(Tools.cardrender, ["keys"] + arguments + ["--data", data])
    }

    @Test(
        "keys listed, revoked and rotated under a running service; each card's transitions logged; no key from a URL in the log; the metrics"
    )
    func operations() async throws {
        let scratch = try Fixtures.scratchDirectory("serve-operations")
        let data = scratch + "/data"
        let created = try Self.keys(["create", "phone app"], data: data)
        try #require(created.status == 0, "\(created.stderr)")
        let key = created.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try Self.keys(["create", "web shop"], data: data)
        let serve = try await Serve.start(data: data, scratch: scratch)
        defer { serve.process.kill() }
        let auth = ["-H", "Authorization: Bearer \(key)"]

        // A photo, a preview and an order of two cards, rendered.
        let upload = try Self.curl(
            auth + [
                "-H", "Content-Type: image/jpeg", "--data-binary", "@" + ServiceAPITests.photo,
                serve.base + "/v1/photos",
            ])
        #expect(upload.status == 201, "\(upload.body)")
        // `Expect: 100-continue` answered at once: curl sends the body without its 1 s wait.
        let expecting = try Tools.run(
            "/usr/bin/curl",
            [
                "-sv", "-o", "/dev/null", "-H", "Authorization: Bearer \(key)", "-H", "Content-Type: image/jpeg", "-H",
                "Expect: 100-continue", "--data-binary", "@" + ServiceAPITests.photo, serve.base + "/v1/photos",
            ])
        #expect(expecting.stderr.contains("< HTTP/1.1 100 Continue"), "\(expecting.stderr.suffix(1500))")
        let digest = String(try Tools.run("/usr/bin/sha256sum", [ServiceAPITests.photo]).stdoutText.prefix(64))
        let spec = ServiceAPITests.spec(photo: digest, recipients: 2)
        let preview = try Self.curl(
            auth + [
                "-o", "/dev/null", "-H", "Content-Type: application/json", "--data-binary", spec,
                serve.base + "/v1/previews",
            ])
        #expect(preview.status == 200)
        let order = try Self.curl(
            auth + [
                "-H", "Content-Type: application/json", "--data-binary", #"{"spec": \#(spec)}"#,
                serve.base + "/v1/cards",
            ])
        #expect(order.status == 202, "\(order.body)")
        let ids =
            ((try? JSONSerialization.jsonObject(with: Data(order.body.utf8))) as? [String: Any])?["cards"]
            .flatMap { $0 as? [[String: Any]] }?.compactMap { $0["id"] as? String } ?? []
        #expect(ids.count == 2)
        let allReady = await Poll.until(seconds: 300) {
            ids.allSatisfy { id in
                (try? Self.curl(auth + [serve.base + "/v1/cards/\(id)"]))?.body.contains(#""status" : "ready""#) == true
            }
        }
        #expect(allReady, "\(serve.logText.suffix(2000))")
        for id in ids {
            for line in ["card \(id): queued", "card \(id): claimed by node", "card \(id): ready (print quality"] {
                #expect(serve.logText.contains(line), "missing '\(line)': \(serve.logText.suffix(3000))")
            }
        }
        let metrics = try Self.curl([serve.base + "/metrics"]).body
        #expect(metrics.contains(#"cardrender_cards{status="ready"} 2"#), "\(metrics)")
        #expect(metrics.contains(#"cardrender_card_transitions_total{to="queued"} 2"#), "\(metrics)")
        #expect(metrics.contains("cardrender_preview_duration_seconds_count 1"), "\(metrics)")
        #expect(metrics.contains("cardrender_card_queue_depth 0"), "\(metrics)")

        // A key sent in the URL is refused, and the log keeps none of it.
        let inURL = try Self.curl([serve.base + "/v1/cards?api_key=\(key)&token=\(key)&limit=2"])
        #expect(inURL.status == 401)
        let logged = await Poll.until(seconds: 30) { serve.logText.contains("api_key=REDACTED&token=REDACTED&limit=2") }
        #expect(logged, "\(serve.logText.suffix(2000))")
        #expect(!serve.logText.contains(key.dropFirst(4)), "a key reached the log")

        // The operator's view: both keys, no secret.
        let listed = try Self.keys(["list"], data: data)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdoutText.contains("phone app") && listed.stdoutText.contains("web shop"))
        #expect(listed.stdoutText.contains("in use") && !listed.stdoutText.contains("crk_"), "\(listed.stdoutText)")

        // Rotated while it serves: the old secret is refused at the next request, the new one
        // sees the same cards.
        let rotated = try Self.keys(["rotate", "phone app"], data: data)
        #expect(rotated.status == 0, "\(rotated.stderr)")
        let fresh = rotated.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(fresh.hasPrefix("crk_") && fresh != key)
        #expect(try Self.curl(auth + [serve.base + "/v1/cards"]).status == 401)
        let mine = try Self.curl(["-H", "Authorization: Bearer \(fresh)", serve.base + "/v1/cards"])
        #expect(mine.status == 200 && ids.allSatisfy { mine.body.contains($0) }, "\(mine.body)")

        // Revoked: refused at once; revoking again or an unknown name fails and says why.
        let revoked = try Self.keys(["revoke", "phone app"], data: data)
        #expect(revoked.status == 0, "\(revoked.stderr)")
        let refused = try Self.curl(["-H", "Authorization: Bearer \(fresh)", serve.base + "/v1/cards"])
        #expect(refused.status == 401 && refused.body.contains("revoked"), "\(refused.body)")
        let again = try Self.keys(["revoke", "phone app"], data: data)
        #expect(again.status == 1 && again.stderr.contains("revoked already"), "\(again.stderr)")
        let unknown = try Self.keys(["rotate", "nobody"], data: data)
        #expect(unknown.status == 1 && unknown.stderr.contains("no key is named"), "\(unknown.stderr)")
        #expect(try Self.keys(["list"], data: data).stdoutText.contains("revoked 20"))
    }

    @Test("serve does not start without its frame catalogue or press profiles, and names the path")
    func refusesToStartWithoutItsData() throws {
        let scratch = try Fixtures.scratchDirectory("serve-start")
        for (variable, words) in [
            ("CARDRENDER_FRAMES", "the frame catalogue /nonexistent/frames cannot be read"),
            ("CARDRENDER_PRESS_PROFILES", "the press profiles in /nonexistent/frames cannot be used"),
        ] {
            let run = try Tools.run(
                "/usr/bin/timeout",
                [
                    "60", Tools.cardrender, "serve", "--data", scratch + "/data", "--port", "0", "--cache",
                    scratch + "/cache",
                ], environment: ProcessInfo.processInfo.environment.merging([variable: "/nonexistent/frames"]) { $1 })
            #expect(run.status == 64, "\(variable): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains(words), "\(variable): \(run.stderr)")
        }
    }

    /// The peak resident memory of process `pid` so far, in bytes (`VmHWM`).
    static func peakMemory(_ pid: pid_t) -> Int? {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return line.split(separator: " ").compactMap { Int($0) }.first.map { $0 * 1024 }
    }

    @Test("a 100 MP PNG (no shrink-on-load) uploaded and previewed: the server's peak stays within 300 MiB")
    func largePNGPreviewMemory() async throws {
        let scratch = try Fixtures.scratchDirectory("serve-large-png")
        let png = scratch + "/large.png"
        // 12,000 x 10,000 (120 MP, the most the default policy takes), a gradient.
        let made = try Tools.run("/usr/bin/vips", ["xyz", scratch + "/xyz.v", "12000", "10000"])
        try #require(made.status == 0, "\(made.stderr)")
        let cast = try Tools.run(
            "/usr/bin/vips", ["cast", scratch + "/xyz.v", png + "[compression=1]", "uchar", "--shift"])
        try #require(cast.status == 0, "\(cast.stderr)")
        try? FileManager.default.removeItem(atPath: scratch + "/xyz.v")
        let created = try Self.keys(["create", "app"], data: scratch + "/data")
        let key = created.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        let serve = try await Serve.start(data: scratch + "/data", scratch: scratch)
        defer { serve.process.kill() }
        let auth = ["-H", "Authorization: Bearer \(key)"]
        let upload = try Self.curl(
            auth + ["-H", "Content-Type: image/png", "--data-binary", "@" + png, serve.base + "/v1/photos"])
        #expect(upload.status == 201, "\(upload.body)")
        let digest = String(try Tools.run("/usr/bin/sha256sum", [png]).stdoutText.prefix(64))
        for spec in [
            #"{"version": 1, "photo": "\#(digest)", "frame": "travel/airmail"}"#,
            #"{"version": 1, "photo": "\#(digest)", "transform": {"scale": 1.4, "rotation": 12, "offset": {"x": 0.1, "y": 0}}}"#,
        ] {
            let preview = try Self.curl(
                auth + [
                    "-o", scratch + "/preview.jpg", "-H", "Content-Type: application/json", "--data-binary", spec,
                    serve.base + "/v1/previews",
                ])
            #expect(preview.status == 200, "\(preview.body)")
        }
        let peak = try #require(Self.peakMemory(serve.process.pid))
        #expect(peak <= 300 << 20, "peak \(peak >> 20) MiB")
    }

    @Test("a single node started again takes back at once the cards it left rendering, under whatever name it had")
    func restartedNodeTakesItsCardsBack() async throws {
        let scratch = try Fixtures.scratchDirectory("serve-restart")
        let data = scratch + "/data"
        let created = try Self.keys(["create", "app"], data: data)
        let key = created.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        let first = try await Serve.start(data: data, scratch: scratch, log: scratch + "/first.log")
        let upload = try Self.curl(
            [
                "-H", "Authorization: Bearer \(key)", "-H", "Content-Type: image/jpeg", "--data-binary",
                "@" + ServiceAPITests.photo, first.base + "/v1/photos",
            ])
        #expect(upload.status == 201, "\(upload.body)")
        // One card rendered by the first run: its log names the node.
        let digest = String(try Tools.run("/usr/bin/sha256sum", [ServiceAPITests.photo]).stdoutText.prefix(64))
        let order = try Self.curl(
            [
                "-H", "Authorization: Bearer \(key)", "-H", "Content-Type: application/json", "--data-binary",
                #"{"spec": {"version": 1, "photo": "\#(digest)"}}"#, first.base + "/v1/cards",
            ])
        #expect(order.status == 202, "\(order.body)")
        #expect(await Poll.until(seconds: 120) { first.logText.contains(": ready (print quality") })
        first.process.send(SIGTERM)
        #expect(first.process.wait(upTo: 60) != nil)
        // A card left rendering by a node that died holding a 10-minute lease, under the name an
        // older release gave (host and process id).
        let database = try await SQLiteServiceDatabase(path: data + "/service.sqlite")
        let book = OrderBook(database: database)
        let left = OrderBook.newID("card")
        do {
            let owner = try #require(try await book.keys().first?.id)
            let card = CardRecord(
                id: left, owner: owner, photo: digest, spec: #"{"version": 1, "photo": "\#(digest)"}"#,
                press: "rgb-jpeg", recipient: nil, status: .queued, created: ServiceClock.milliseconds())
            _ = try await book.place(owner: owner, idempotencyKey: nil, bodyDigest: "", cards: [card], answer: "")
            let claim = try await book.claim(leaseMilliseconds: 600_000, node: "oldhost:4242")
            #expect(claim.claim?.card.id == left)
            await database.close()
        } catch {
            await database.close()
            throw error
        }
        let second = try await Serve.start(data: data, scratch: scratch, log: scratch + "/second.log")
        defer { second.process.kill() }
        let ready = await Poll.until(seconds: 120) {
            (try? Self.curl(["-H", "Authorization: Bearer \(key)", second.base + "/v1/cards/\(left)"]))?.body
                .contains(#""status" : "ready""#) == true
        }
        #expect(ready, "the card waited for the dead node's lease: \(second.logText.suffix(2000))")
        // The node's default name is the host and its data directory: the same after a restart.
        let host = ProcessInfo.processInfo.hostName
        #expect(second.logText.contains("card \(left): put back in the queue: node \(host):"), "\(second.logText)")
        let names = [first.logText, second.logText].map { text in
            text.components(separatedBy: "node \(host):").dropFirst().first.map { String($0.prefix(8)) }
        }
        #expect(names[0] != nil && names[0] == names[1], "\(names)")
    }
}
