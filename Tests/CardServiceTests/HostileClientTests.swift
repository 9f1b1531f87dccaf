import CardService
import Foundation
import ImageCore
import NIOHTTP1
import RenderCache
import ServerShell
import TestSupport
import Testing

/// `/v1` against a key holder probing it as an attacker would, and against the client
/// libraries people use: forms with endless headers or parts refused before they are read,
/// a trickling body cut while another key's upload is answered, a flood of wrong keys that
/// never locks a valid one out, answers sent before the body read by clients that send the
/// whole body first, and numbers and lists out of bounds named by their field.
@Suite(
    .libvips,
    .enabled(
        if: FileManager.default.fileExists(atPath: Fixtures.photo("photos/phone-4032x3024.jpg")),
        "../shared/corpus is absent"))
struct HostileClientTests {
    static let boundary = "probe-boundary"

    /// A small PNG's bytes (64 x 48).
    static func smallPNG() throws -> Data {
        let scratch = try Fixtures.scratchDirectory("small-png")
        try Synthetic.quadrants(scratch + "/q.png", width: 64, height: 48)
        return try Data(contentsOf: URL(fileURLWithPath: scratch + "/q.png"))
    }

    /// The head of a `POST /v1/photos` of `length` bytes.
    static func uploadHead(key: String, length: Int, type: String) -> String {
        "POST /v1/photos HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(key)\r\nContent-Type: \(type)\r\n"
            + "Content-Length: \(length)\r\n\r\n"
    }

    @Test(
        "a part with 65,535 header fields is refused from its first 8 KiB; 40,000 parts at the ninth; a form with fields is read"
    )
    func boundedForms() async throws {
        try await LiveService.with(.sqlite) { live in
            let key = try await live.service.book.createKey(name: "prober").secret
            let fields = (0..<65_535).map { "X-Field-\($0): v\r\n" }.joined()
            let body =
                "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"p\"; filename=\"a.jpg\"\r\n" + fields
                + "\r\nx\r\n--\(Self.boundary)--\r\n"
            let raw = try RawConnection(port: live.port)
            raw.send(
                Self.uploadHead(
                    key: key, length: body.utf8.count, type: "multipart/form-data; boundary=\(Self.boundary)"))
            // A fiftieth of the body, and no more: the answer needs nothing after the bound.
            raw.send(String(body.prefix(16 << 10)))
            let answer = String(decoding: await raw.readUntilClosed(within: 60).data, as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(300))")
            #expect(answer.contains("header block over 8192 bytes"), "\(answer)")

            let parts =
                (0..<40_000).map {
                    "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"f\($0)\"\r\n\r\nv\r\n"
                }
                .joined() + "--\(Self.boundary)--\r\n"
            let many = try await live.send(
                .POST, "/v1/photos", key: key, body: Data(parts.utf8),
                contentType: "multipart/form-data; boundary=\(Self.boundary)")
            #expect(many.status == 400 && many.text.contains("more than 8 parts"), "\(many.text)")

            // A browser's form: seven fields and the file, in any order.
            let png = try Self.smallPNG()
            var form = Data()
            for index in 0..<7 {
                form.append(
                    Data(
                        "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"f\(index)\"\r\n\r\nvalue \(index)\r\n"
                            .utf8))
                if index == 3 {
                    form.append(
                        Data(
                            "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"q.png\"\r\nContent-Type: image/png\r\n\r\n"
                                .utf8))
                    form.append(png)
                    form.append(Data("\r\n".utf8))
                }
            }
            form.append(Data("--\(Self.boundary)--\r\n".utf8))
            let stored = try await live.send(
                .POST, "/v1/photos", key: key, body: form, contentType: "multipart/form-data; boundary=\(Self.boundary)"
            )
            #expect(stored.status == 201 && stored.json["id"] as? String == ContentDigest.of(png), "\(stored.text)")
        }
    }

    @Test(
        "a key's trickling uploads: cut at their deadline, never more than their share, while another key's upload is answered"
    )
    func tricklingBodies() async throws {
        var limits = APILimits()
        limits.bodyMinRate = 2048
        limits.uploadWait = .seconds(2)
        try await LiveService.with(.sqlite, bodyTimeout: .seconds(8), limits: limits) { live in
            let slow = try await live.service.book.createKey(name: "trickler").secret
            let other = try await live.service.book.createKey(name: "customer").secret
            let png = try Self.smallPNG()
            // Two uploads of the trickler, a byte every half second (never pausing for the
            // 8 s allowed); each connection's answer read as it comes, with the time it came.
            let connections = try (0..<2).map { _ in try RawConnection(port: live.port) }
            for connection in connections {
                connection.send(Self.uploadHead(key: slow, length: 100_000, type: "image/jpeg"))
            }
            let trickle = Task {
                for _ in 0..<120 {
                    for connection in connections { connection.send("x") }
                    try await Task.sleep(for: .milliseconds(500))
                }
            }
            defer { trickle.cancel() }
            let reading = connections.map { connection in
                Task { () -> (answer: String, at: Date) in
                    let read = await connection.readUntilClosed(within: 60)
                    return (String(decoding: read.data, as: UTF8.self), Date())
                }
            }
            // The other key's upload is answered while the trickler holds its one slot: one of the
            // two upload slots is always left for another key.
            let answered = try await live.send(.POST, "/v1/photos", key: other, body: png, contentType: "image/png")
            let answeredAt = Date()
            #expect(answered.status == 201, "\(answered.text)")
            var answers: [(answer: String, at: Date)] = []
            for task in reading { answers.append(await task.value) }
            // The trickle that held a slot: 408 once too slow, after the other key was answered.
            // The other waited for the trickler's share, and was told to come back.
            let timedOut = try #require(answers.first { $0.answer.hasPrefix("HTTP/1.1 408") }, "\(answers)")
            #expect(timedOut.answer.contains("arrived too slowly"), "\(timedOut.answer)")
            #expect(timedOut.at > answeredAt, "the trickle was cut before the other key's upload was answered")
            let busy = try #require(answers.first { $0.answer.hasPrefix("HTTP/1.1 503") }, "\(answers)")
            #expect(busy.answer.lowercased().contains("retry-after: 2"), "\(busy.answer)")
            let metrics = try await live.send(.GET, "/metrics", key: nil).text
            #expect(metrics.contains(#"cardrender_request_body_errors_total{reason="too_slow"} 1"#), "\(metrics)")
            #expect(metrics.contains("cardrender_uploads_busy_total 1"), "\(metrics)")
        }
    }

    @Test("300 wrong keys from one address at once: slowed with a bounded Retry-After, and a valid key from it served")
    func wrongKeysNeverLockOut() async throws {
        try await LiveService.with(.sqlite) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let statuses = try await withThrowingTaskGroup(of: (Int, Int?).self) { group in
                for attempt in 0..<300 {
                    group.addTask {
                        let reply = try await live.send(.GET, "/v1/cards", key: "crk_guess\(attempt)")
                        return (reply.status, reply.header("Retry-After").flatMap(Int.init))
                    }
                }
                var all: [(Int, Int?)] = []
                for try await status in group { all.append(status) }
                return all
            }
            #expect(statuses.filter { $0.0 == 401 }.count >= 20, "the burst is answered 401")
            #expect(statuses.allSatisfy { $0.0 == 401 || $0.0 == 429 })
            let waits = statuses.compactMap(\.1)
            #expect(
                !waits.isEmpty && waits.allSatisfy { (1...60).contains($0) },
                "Retry-After at most 60 s: \(waits.max() ?? 0)")
            // A valid key from the same address: served.
            for _ in 0..<3 {
                let right = try await live.send(.GET, "/v1/cards", key: key)
                #expect(right.status == 200, "\(right.text)")
            }
            // Another wrong key from the address is still slowed.
            #expect(try await live.send(.GET, "/v1/cards", key: "crk_more").status == 429)
        }
    }

    @Test("behind a trusted proxy each client is its X-Forwarded-For address; from anyone else the header is ignored")
    func trustedProxy() async throws {
        var limits = APILimits()
        limits.trustedProxies = [try #require(AddressRange("127.0.0.0/8"))]
        try await LiveService.with(.sqlite, failedAuthentications: (3, 1.0 / 3600), limits: limits) { live in
            let bad = [("X-Forwarded-For", "198.51.100.7")]
            var statuses: [Int] = []
            for attempt in 0..<5 {
                statuses.append(try await live.send(.GET, "/v1/cards", key: "crk_\(attempt)", headers: bad).status)
            }
            #expect(statuses == [401, 401, 401, 429, 429], "\(statuses)")
            // Another client behind the same proxy is not slowed by the first one's failures.
            let elsewhere = try await live.send(
                .GET, "/v1/cards", key: "crk_x", headers: [("X-Forwarded-For", "6.6.6.6, 198.51.100.8")])
            #expect(elsewhere.status == 401, "\(elsewhere.text)")
        }
        // Without a trusted proxy, the header is the client's own word: every request is the peer's.
        try await LiveService.with(.sqlite, failedAuthentications: (3, 1.0 / 3600)) { live in
            var statuses: [Int] = []
            for attempt in 0..<4 {
                statuses.append(
                    try await live.send(
                        .GET, "/v1/cards", key: "crk_\(attempt)", headers: [("X-Forwarded-For", "203.0.113.\(attempt)")]
                    ).status)
            }
            #expect(statuses == [401, 401, 401, 429], "\(statuses)")
        }
    }

    /// Python's `http.client` sending `size` bytes to `path` (it sends the whole body before it
    /// reads): the status it read, or the error it got.
    static func pythonPost(port: Int, path: String, key: String, size: Int, type: String) throws -> String {
        let script = """
            import http.client, sys
            port, path, key, size, kind = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            try:
                connection.request("POST", path, body=b"x" * size, headers={"Authorization": "Bearer " + key, "Content-Type": kind})
                answer = connection.getresponse()
                print(answer.status, answer.read().decode()[:200])
            except Exception as error:
                print("error", type(error).__name__, error)
            """
        return try Tools.run("/usr/bin/python3", ["-c", script, String(port), path, key, String(size), type])
            .stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        "an answer sent before the body is read reaches clients that send the whole body first (Python's http.client, curl)"
    )
    func lingeringClose() async throws {
        try await LiveService.with(.sqlite, maxPhotoBytes: 5 << 20) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let port = live.port
            let over = try await Tools.onWorkerThread {
                try Self.pythonPost(port: port, path: "/v1/photos", key: key, size: (5 << 20) + 1, type: "image/jpeg")
            }
            #expect(over.hasPrefix("413") && over.contains("5242880 at most"), "\(over)")
            let twenty = try await Tools.onWorkerThread {
                try Self.pythonPost(port: port, path: "/v1/photos", key: key, size: 20 << 20, type: "image/jpeg")
            }
            #expect(twenty.hasPrefix("413"), "\(twenty)")
            let wrong = try await Tools.onWorkerThread {
                try Self.pythonPost(port: port, path: "/v1/photos", key: "crk_wrong", size: 3 << 20, type: "image/jpeg")
            }
            #expect(wrong.hasPrefix("401"), "\(wrong)")
            let form = try await Tools.onWorkerThread {
                try Self.pythonPost(
                    port: port, path: "/v1/photos", key: key, size: 4 << 20,
                    type: "multipart/form-data; boundary=\(Self.boundary)")
            }
            #expect(form.hasPrefix("400") && form.contains("no boundary"), "\(form)")
            let json = try await Tools.onWorkerThread {
                try Self.pythonPost(port: port, path: "/v1/cards", key: key, size: 3 << 20, type: "application/json")
            }
            #expect(json.hasPrefix("413"), "\(json)")
            // curl, with its Expect: 100-continue, and without.
            let file = try Fixtures.scratchDirectory("lingering") + "/big.bin"
            try Data(count: (5 << 20) + 1).write(to: URL(fileURLWithPath: file))
            for expect in [[], ["-H", "Expect:"]] {
                let curl = try await Tools.onWorkerThread {
                    try Tools.run(
                        "/usr/bin/curl",
                        [
                            "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(key)", "-H",
                            "Content-Type: image/jpeg", "--data-binary", "@" + file,
                            "http://127.0.0.1:\(port)/v1/photos",
                        ]
                            + expect)
                }
                #expect(curl.stdoutText == "413", "curl \(expect): \(curl.stdoutText) \(curl.stderr)")
            }
        }
    }

    @Test("a body that keeps coming fast enough but past its deadline is cut with 408")
    func bodyDeadline() async throws {
        var limits = APILimits()
        limits.bodyMinRate = 1
        limits.bodyDeadline = .seconds(3)
        try await LiveService.with(.sqlite, bodyTimeout: .seconds(2), limits: limits) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let connection = try RawConnection(port: live.port)
            connection.send(
                "POST /v1/cards HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(key)\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 1000\r\n\r\n")
            let trickle = Task {
                for _ in 0..<400 {
                    connection.send(" ")
                    try await Task.sleep(for: .milliseconds(250))
                }
            }
            defer { trickle.cancel() }
            let answer = String(decoding: await connection.readUntilClosed(within: 60).data, as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
            #expect(answer.contains("took longer than 3 s to arrive"), "\(answer)")
        }
    }

    @Test("an early answer reaches a client that says Connection: close (urllib), and one refused mid-body (408)")
    func lingeringOnEveryPath() async throws {
        try await LiveService.with(.sqlite, maxPhotoBytes: 5 << 20, bodyTimeout: .seconds(2)) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let port = live.port
            let script = """
                import sys, urllib.error, urllib.request
                request = urllib.request.Request("http://127.0.0.1:" + sys.argv[1] + "/v1/photos", data=b"x" * (5 * 1024 * 1024 + 1),
                    headers={"Authorization": "Bearer " + sys.argv[2], "Content-Type": "image/jpeg"}, method="POST")
                try:
                    urllib.request.urlopen(request, timeout=60)
                    print("accepted")
                except urllib.error.HTTPError as error:
                    print(error.code, error.read().decode()[:200])
                except Exception as error:
                    print("error", type(error).__name__, error)
                """
            let urllib = try await Tools.onWorkerThread {
                try Tools.run("/usr/bin/python3", ["-c", script, String(port), key]).stdoutText
            }
            #expect(urllib.hasPrefix("413"), "\(urllib)")
            // A body that stopped: 408 written while 3 MiB more are on their way, which the
            // client sends before it reads.
            let connection = try RawConnection(port: port)
            connection.send(
                "POST /v1/photos HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(key)\r\nContent-Type: image/jpeg\r\n"
                    + "Content-Length: \(3 << 20)\r\n\r\nfirst")
            #expect(await connection.hasAnswer(within: 60), "no 408")
            let rest = String(repeating: "x", count: (3 << 20) - 5)
            let answer = try await Tools.onWorkerThread { () -> String in
                connection.send(rest)
                return String(decoding: connection.readUntilClosed(within: 60).data, as: UTF8.self)
            }
            #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer.prefix(300))")
        }
    }

    @Test("a number too large names its field; lists over their length or with repeats, and bad times, in words")
    func wordsForBounds() async throws {
        try await LiveService.with(.sqlite) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let huge = try await live.send(
                .POST, "/v1/cards", key: key,
                body: Data(#"{"spec": {"version": 1, "photo": "x", "transform": {"scale": 1e400}}}"#.utf8))
            #expect(huge.status == 422, "\(huge.text)")
            #expect(
                huge.text.contains("spec.transform.scale is 1e400, beyond what a number can be here"), "\(huge.text)")
            #expect((huge.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "spec.transform.scale")
            let types = (0..<21).map { _ in #""card.ready""# }.joined(separator: ", ")
            let long = try await live.send(
                .POST, "/v1/webhook-endpoints", key: key,
                body: Data(#"{"url": "https://93.184.215.14/", "types": [\#(types)]}"#.utf8))
            #expect(long.status == 422 && long.text.contains("types has 21 items; 20 at most"), "\(long.text)")
            let errors = (long.json["errors"] as? [[String: Any]] ?? []).map {
                "\($0["field"] as? String ?? "") \($0["detail"] as? String ?? "")"
            }
            #expect(
                errors == [
                    "types has 21 items; 20 at most",
                    "types[1] repeats \"card.ready\"; each item may be given once",
                ], "\(errors)")
            let made = try await live.send(
                .POST, "/v1/webhook-endpoints", key: key, body: Data(#"{"url": "https://93.184.215.14/"}"#.utf8))
            let id = try #require(made.json["id"] as? String, "\(made.text)")
            let replay = try await live.send(
                .POST, "/v1/webhook-endpoints/\(id)/replay", key: key, body: Data(#"{"since": "yesterday"}"#.utf8))
            #expect(replay.status == 422 && replay.text.contains("since must be a date and time"), "\(replay.text)")
            for word in APIConventionTests.internals { #expect(!replay.text.contains(word), "\(replay.text)") }
        }
    }
}
