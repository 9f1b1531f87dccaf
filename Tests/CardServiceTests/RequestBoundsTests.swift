import CardKit
import Foundation
import NIOCore
import Synchronization
import TestSupport
import Testing

@testable import CardService

/// The bounded readers in front of `/v1`, on their own: a form read as it arrives (whatever the
/// chunks, within its bounds), upload slots shared between keys, a JSON number too large
/// named by its field, a webhook URL checked and normalised, a receiver's words escaped.
struct RequestBoundsTests {
    static let boundary = "XyZ-boundary"

    /// A form of `parts` (name, file name or nil, content).
    static func form(_ parts: [(String, String?, String)], extraHeaders: [String] = [], preamble: String = "")
        -> String
    {
        var body = preamble
        for (name, file, content) in parts {
            body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\""
            if let file { body += "; filename=\"\(file)\"" }
            body += "\r\n" + extraHeaders.map { $0 + "\r\n" }.joined() + "\r\n" + content + "\r\n"
        }
        return body + "--\(boundary)--\r\nthe epilogue, ignored"
    }

    /// Reads `body` split at `cuts` (offsets), as the body arrives in parts.
    static func read(_ body: String, cuts: [Int]) throws(MultipartFormReader.Refusal) -> String {
        var reader = try MultipartFormReader(contentType: "multipart/form-data; boundary=\"\(boundary)\"")
        let bytes = Array(body.utf8)
        var buffer = ByteBuffer()
        var start = 0
        for cut in cuts.sorted() + [bytes.count] where cut >= start {
            buffer.writeBytes(bytes[start..<cut])
            try reader.read(buffer)
            start = cut
        }
        let file = try reader.file()
        return String(decoding: bytes[file], as: UTF8.self)
    }

    @Test("a form's file part is found however the body is cut into chunks, a byte at a time included")
    func anyChunks() throws {
        let body = Self.form(
            [("title", nil, "Beach"), ("photo", "a.jpg", "JPEG\r\n--XyZ-boundar bytes\r\n-- still"), ("x", nil, "")],
            preamble: "a preamble\r\n")
        #expect(try Self.read(body, cuts: []) == "JPEG\r\n--XyZ-boundar bytes\r\n-- still")
        #expect(try Self.read(body, cuts: Array(0..<body.utf8.count)) == "JPEG\r\n--XyZ-boundar bytes\r\n-- still")
        var random = SplitMix(seed: 50)
        for _ in 0..<200 {
            let cuts = (0..<Int(random.next() % 6)).map { _ in Int(random.next() % UInt64(body.utf8.count)) }
            #expect(try Self.read(body, cuts: cuts) == "JPEG\r\n--XyZ-boundar bytes\r\n-- still", "\(cuts)")
        }
        // The form's only part is its file, named or not.
        #expect(try Self.read(Self.form([("p", nil, "bytes")]), cuts: [7]) == "bytes")
        // Transport padding after a boundary, and an empty header block, are allowed.
        let padded =
            "--\(Self.boundary)  \t\r\nContent-Disposition: form-data; name=\"p\"\r\n\r\nok\r\n--\(Self.boundary)--"
        #expect(try Self.read(padded, cuts: []) == "ok")
    }

    @Test("a form over a bound is refused at the byte that breaks it; malformed forms in words")
    func bounds() throws {
        let fields = { (count: Int) in (0..<count).map { "X-Field-\($0): v" } }
        #expect(try Self.read(Self.form([("p", "a", "x")], extraHeaders: fields(31)), cuts: []) == "x")
        #expect(throws: MultipartFormReader.Refusal.tooManyFields(part: 1, fields: 33)) {
            try Self.read(Self.form([("p", "a", "x")], extraHeaders: fields(32)), cuts: [])
        }
        // 65,535 fields: refused once the header block passes 8 KiB, with 8 KiB and a little
        // of the body given (the rest never read).
        let huge = Self.form([("p", "a", "x")], extraHeaders: fields(65_535))
        var reader = try MultipartFormReader(contentType: "multipart/form-data; boundary=\(Self.boundary)")
        let head = ByteBuffer(bytes: Array(huge.utf8.prefix(MultipartFormReader.maxHeaderBytes + 200)))
        #expect(throws: MultipartFormReader.Refusal.headerTooLarge(part: 1)) { try reader.read(head) }
        let eight = (0..<8).map { ("f\($0)", $0 == 3 ? "a" : nil, "v") }
        #expect(try Self.read(Self.form(eight), cuts: []) == "v")
        #expect(throws: MultipartFormReader.Refusal.tooManyParts) {
            try Self.read(Self.form(eight + [("ninth", nil, "v")]), cuts: [])
        }
        // 40,000 parts: refused at the ninth part's boundary line.
        let many = Self.form((0..<40_000).map { ("f\($0)", nil, "v") })
        var counting = try MultipartFormReader(contentType: "multipart/form-data; boundary=\(Self.boundary)")
        let ninth = many.range(of: "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"f8\"")!
        let upTo = many.utf8.distance(from: many.startIndex, to: ninth.lowerBound) + Self.boundary.utf8.count + 4
        #expect(throws: MultipartFormReader.Refusal.tooManyParts) {
            try counting.read(ByteBuffer(bytes: Array(many.utf8.prefix(upTo))))
        }
        for (bad, words) in [
            (
                "--\(Self.boundary)\r\nContent-Type: text/plain\r\n\r\nx\r\n--\(Self.boundary)--",
                "no Content-Disposition"
            ),
            ("--\(Self.boundary)\r\nContent-Disposition: form-data\r\n\r\nx\r\n--\(Self.boundary)--", "has no name"),
            (
                "--\(Self.boundary)\r\nContent-Disposition: attachment; name=p\r\n\r\nx\r\n--\(Self.boundary)--",
                "not form-data"
            ),
            ("--\(Self.boundary)\r\nno colon here\r\n\r\nx\r\n--\(Self.boundary)--", "'Name: value'"),
            ("--\(Self.boundary)\r\nContent-Disposition: form-data; name=p\r\n\r\nx", "before its closing boundary"),
            ("--\(Self.boundary)X\r\n", "not followed by a line break"),
            (String(repeating: "preamble ", count: 2000), "no boundary within"),
            (Self.form([("a", "1.jpg", "x"), ("b", "2.jpg", "y")]), "more than one file"),
            ("--\(Self.boundary)--\r\n", "no file part"),
        ] {
            do {
                _ = try Self.read(bad, cuts: [])
                Issue.record("accepted: \(bad.prefix(80))")
            } catch {
                #expect(error.description.contains(words), "\(error.description)")
            }
        }
        for type in [
            "multipart/form-data", "multipart/form-data; boundary=", "multipart/form-data; boundary=\"\"",
            "multipart/form-data; boundary=" + String(repeating: "b", count: 71),
            "multipart/form-data; boundary=a\u{7}b",
        ] {
            #expect(throws: MultipartFormReader.Refusal.noBoundary, "\(type)") {
                try MultipartFormReader(contentType: type)
            }
        }
        #expect(MultipartFormReader.boundary(of: "Multipart/Form-Data; charset=x; BOUNDARY=\"a b\"") == "a b")
    }

    @Test("upload slots: no key holds them all, a freed slot goes to the key holding fewest, a wait is bounded")
    func fairPermits() async throws {
        let permits = FairPermits(3, maxWait: .seconds(600))
        #expect(permits.perOwner == 2)
        let (started, starting) = AsyncStream.makeStream(of: String.self)
        var gates: [String: AsyncStream<Void>.Continuation] = [:]
        var tasks: [Task<Void, any Error>] = []
        func start(_ name: String, owner: String) {
            let (gate, open) = AsyncStream.makeStream(of: Void.self)
            gates[name] = open
            tasks.append(
                Task {
                    try await permits.run(owner: owner) {
                        starting.yield(name)
                        for await _ in gate { break }
                    }
                })
        }
        var iterator = started.makeAsyncIterator()
        start("a1", owner: "a")
        start("a2", owner: "a")
        let first = [await iterator.next(), await iterator.next()]
        #expect(Set(first.compactMap { $0 }) == ["a1", "a2"])
        // A third of a's waits with a slot free: a key never holds every slot.
        start("a3", owner: "a")
        #expect(await Poll.until(seconds: 30) { permits.waiting(for: "a") == 1 })
        #expect(permits.held(by: "a") == 2)
        // b takes the free slot at once; c waits.
        start("b", owner: "b")
        #expect(await iterator.next() == "b")
        start("c", owner: "c")
        #expect(await Poll.until(seconds: 30) { permits.waiting(for: "c") == 1 })
        // a1 done: its slot goes to c (holding none), not to a's third, which waited longer.
        gates["a1"]?.finish()
        #expect(await iterator.next() == "c")
        #expect(permits.waiting(for: "a") == 1)
        gates["b"]?.finish()
        #expect(await iterator.next() == "a3")
        for gate in gates.values { gate.finish() }
        for task in tasks { try await task.value }
        #expect(permits.held(by: "a") == 0 && permits.held(by: "c") == 0)

        // A wait is bounded: Busy, with the seconds to retry after.
        let one = FairPermits(1, maxWait: .milliseconds(200))
        let (hold, release) = AsyncStream.makeStream(of: Void.self)
        let (holding, held) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            try await one.run(owner: "a") {
                held.yield()
                for await _ in hold { break }
            }
        }
        for await _ in holding { break }
        await #expect(throws: FairPermits.Busy.self) { try await one.run(owner: "b") {} }
        // A waiter whose client left stops waiting at once.
        let leaving = Task { try await one.run(owner: "c") {} }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        release.finish()
        try await holder.value
        try await one.run(owner: "b") {}
    }

    @Test("a number too large for any field is named by its path, in objects and arrays")
    func numbersOutOfRange() {
        let cases: [(String, String?)] = [
            (#"{"spec": {"transform": {"scale": 1e400}}}"#, "spec.transform.scale"),
            (#"{"a": [1, 2, {"b": [0, -1E999]}]}"#, "a[2].b[1]"),
            (#"{"k\"ey": 1, "n\u0061me": 1e400}"#, "name"),
            (#"[{"x": "1e400"}, 1e400]"#, "[1]"),
            ("1e400", ""),
            (#"{"fine": 1e300, "tiny": 1e-400}"#, nil),
            (#"{"big": 1\#(String(repeating: "0", count: 400))}"#, "big"),
        ]
        for (json, path) in cases {
            let found = JSONNumberScan.firstOutOfRange(in: Data(json.utf8))
            #expect(found?.path == path, "\(json): \(String(describing: found))")
        }
    }

    @Test("webhook URLs: only as RFC 3986 writes them, stored normalised")
    func webhookURLs() throws {
        for (given, kept) in [
            ("HTTPS://Hooks.Example.COM:443", "https://hooks.example.com/"),
            ("https://hooks.example.com/a%2fb?x=%7e#", "https://hooks.example.com/a%2Fb?x=%7E#"),
            ("http://127.0.0.1:80/events", "http://127.0.0.1/events"),
            ("https://[2001:DB8::1]:443/x", "https://[2001:db8::1]/x"),
            ("https://hooks.example.com:8443/?q", "https://hooks.example.com:8443/?q"),
        ] {
            #expect(try WebhookURL.normalised(given) == kept, "\(given)")
        }
        for (bad, words) in [
            ("https://hooks.example.com/a\r\nInjected: 1", "control character"),
            ("https://hooks.example.com/a b", "' '"), ("https://hôoks.example.com/", "outside ASCII"),
            ("https://hooks.example.com/%zz", "two hex digits"), ("hooks.example.com/x", "absolute URL"),
            ("https://hooks.example.com/\u{7f}", "control character"), ("https://x/<script>", "'<'"),
        ] {
            #expect(throws: WebhookRefusal.self, "\(bad)") { try WebhookURL.normalised(bad) }
            do {
                _ = try WebhookURL.normalised(bad)
            } catch {
                #expect(error.reason.contains(words), "\(bad): \(error.reason)")
            }
        }
    }

    @Test("a receiver's answer in a log line: no line break, escape or direction mark survives")
    func escapedLogText() {
        #expect(LogText.escaped("nope\r\nwebhook x: delivered\u{1b}[0m") == "nope\\r\\nwebhook x: delivered\\u{1b}[0m")
        #expect(LogText.escaped("a\u{2028}b\u{202e}c\\") == "a\\u{2028}b\\u{202e}c\\\\")
        #expect(LogText.escaped(String(repeating: "é", count: 300), limit: 5) == "ééééé…")
    }

    @Test("every keyword the document's schemas use is enforced by the validator, or only describes")
    func documentKeywords() throws {
        let document = try JSONDecoder().decode(JSONValue.self, from: Data(OpenAPIDocument.json.utf8))
        var used = Set<String>()
        func walk(_ value: JSONValue, inSchema: Bool) {
            switch value {
            case .object(let fields):
                for (name, field) in fields {
                    if inSchema { used.insert(name) }
                    switch name {
                    case "schema", "items": walk(field, inSchema: true)
                    case "additionalProperties": if case .object = field { walk(field, inSchema: true) }
                    case "properties", "schemas":
                        if case .object(let each) = field { for schema in each.values { walk(schema, inSchema: true) } }
                    case "oneOf", "anyOf", "allOf":
                        if case .array(let each) = field { for schema in each { walk(schema, inSchema: true) } }
                    default: if !inSchema { walk(field, inSchema: false) }
                    }
                }
            case .array(let items): for item in items { walk(item, inSchema: false) }
            default: break
            }
        }
        walk(document, inSchema: false)
        let known = RequestValidator.enforcedKeywords.union(RequestValidator.annotations)
        #expect(used.subtracting(known).isEmpty, "not enforced: \(used.subtracting(known).sorted())")
        #expect(
            used.isSuperset(of: ["maxItems", "uniqueItems", "format", "pattern", "oneOf", "$ref"]), "\(used.sorted())")

        // Each enforced keyword refuses a value that breaks it and takes one that keeps it.
        let cases: [String: (schema: String, bad: String, good: String)] = [
            "type": (#"{"type": "string"}"#, "1", #""a""#),
            "properties": (
                #"{"type": "object", "properties": {"a": {"type": "integer"}}}"#, #"{"a": "x"}"#, #"{"a": 1}"#
            ),
            "required": (#"{"type": "object", "required": ["a"], "properties": {"a": {}}}"#, "{}", #"{"a": 1}"#),
            "additionalProperties": (#"{"type": "object", "additionalProperties": false}"#, #"{"z": 1}"#, "{}"),
            "items": (#"{"type": "array", "items": {"type": "integer"}}"#, #"["x"]"#, "[1]"),
            "maxItems": (#"{"type": "array", "maxItems": 1}"#, "[1, 2]", "[1]"),
            "minItems": (#"{"type": "array", "minItems": 1}"#, "[]", "[1]"),
            "uniqueItems": (#"{"type": "array", "uniqueItems": true}"#, #"["a", "a"]"#, #"["a", "b"]"#),
            "enum": (#"{"type": "string", "enum": ["a"]}"#, #""b""#, #""a""#),
            "oneOf": (#"{"oneOf": [{"type": "string"}, {"type": "integer"}]}"#, "true", "1"),
            "minimum": (#"{"type": "number", "minimum": 1}"#, "0.5", "1"),
            "maximum": (#"{"type": "number", "maximum": 1}"#, "2", "1"),
            "maxLength": (#"{"type": "string", "maxLength": 1}"#, #""ab""#, #""a""#),
            "minLength": (#"{"type": "string", "minLength": 1}"#, #""""#, #""a""#),
            "pattern": (#"{"type": "string", "pattern": "a+"}"#, #""b""#, #""aa""#),
            "format": (
                #"{"type": "string", "format": "date-time"}"#, #""2026-13-01T00:00:00Z""#,
                #""2026-11-27T10:00:00.5+01:00""#
            ),
            "$ref": (##"{"$ref": "#/components/schemas/S"}"##, #""x""#, "7"),
        ]
        #expect(Set(cases.keys) == RequestValidator.enforcedKeywords, "a case for each enforced keyword")
        let validator = RequestValidator(
            document: #"{"openapi": "3.1.0", "paths": {}, "components": {"schemas": {"S": {"type": "integer"}}}}"#)
        for (keyword, (schema, bad, good)) in cases {
            let schema = try JSONDecoder().decode(JSONValue.self, from: Data(schema.utf8))
            var refused: [Problem.FieldError] = []
            validator.validate(
                try JSONDecoder().decode(JSONValue.self, from: Data(bad.utf8)), schema: schema, at: "f", into: &refused)
            #expect(!refused.isEmpty, "\(keyword): \(bad) accepted")
            var accepted: [Problem.FieldError] = []
            validator.validate(
                try JSONDecoder().decode(JSONValue.self, from: Data(good.utf8)), schema: schema, at: "f",
                into: &accepted)
            #expect(accepted.isEmpty, "\(keyword): \(good) refused: \(accepted)")
        }
    }

    @Test("host lookups: bounded in time, a key's hanging lookups counted until their threads return, answers kept")
    func hostLookups() async throws {
        let gate = DispatchSemaphore(value: 0)
        let calls = Atomic<Int>(0)
        let lookups = HostLookups(threads: 4, perOwner: 2, timeout: .milliseconds(300), keep: .seconds(600)) { host in
            calls.add(1, ordering: .relaxed)
            if host.hasPrefix("hang") { gate.wait() }
            return [WebhookAddress.Address(literal: "93.184.215.14")!]
        }
        let address = WebhookAddress(allowLoopback: false)
        func refusal(_ url: String, _ owner: String) async -> String? {
            do {
                _ = try await lookups.pinned(url, owner: owner, address: address)
                return nil
            } catch {
                return error.reason
            }
        }
        // Two hosts whose name servers never answer: each given up on after the timeout.
        for host in ["hang1", "hang2"] {
            #expect(await refusal("https://\(host).example/", "greedy")?.contains("within") == true)
        }
        // Their threads still wait: the key's next lookup is refused at once; another key's runs.
        #expect(await refusal("https://other.example/", "greedy")?.contains("still running") == true)
        let pinned = try await lookups.pinned("https://fine.example/", owner: "polite", address: address)
        #expect(pinned.host == "fine.example" && pinned.address.text == "93.184.215.14")
        // An answer is used again; an address in the URL needs no lookup.
        let before = calls.load(ordering: .relaxed)
        _ = try await lookups.pinned("https://fine.example/other", owner: "polite", address: address)
        _ = try await lookups.pinned("https://93.184.215.14/", owner: "greedy", address: address)
        #expect(calls.load(ordering: .relaxed) == before)
        #expect(await refusal("https://10.0.0.1/", "greedy")?.contains("private") == true)
        // Once the hanging threads return, the key may look up again.
        gate.signal()
        gate.signal()
        #expect(await Poll.until(seconds: 30) { await refusal("https://fine2.example/", "greedy") == nil })
        await lookups.shutdown()
    }

    @Test("known keys: a key's form and its hash, read again once a second")
    func knownKeys() async throws {
        let (book, opened) = try await QueueTests.migrated(.sqlite, "known-keys")
        let known = KnownKeys(book: book, maxAge: .milliseconds(0))
        let (id, secret) = try await book.createKey(name: "app")
        #expect(await known.mayBeKey(secret))
        #expect(!(await known.mayBeKey("crk_" + String(repeating: "0", count: 64))), "a key's form, no key")
        #expect(!(await known.mayBeKey("crk_guess")))
        #expect(!(await known.mayBeKey(secret.uppercased())))
        #expect(try await book.revokeKey(id: id))
        #expect(!(await known.mayBeKey(secret)), "revoked: gone at the next reading")
        await opened.close()
    }
}
