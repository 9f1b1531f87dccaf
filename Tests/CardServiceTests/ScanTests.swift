import CardKit
import Foundation
import ImageCore
import Mail
import NIOHTTP1
import TestSupport
import Testing
import VipsKit

@testable import CardService

/// Scans of cards' backs: the code each service card carries, found in photos taken badly
/// (turned, at an angle, blurred, JPEG at quality 40, 150 dpi), its signature checked (a forged
/// code refused), and the card recorded as returned or delivered with its event, through
/// `POST /v1/scans` and `cardrender scan`, on SQLite and on PostgreSQL.
@Suite(.libvips) struct ScanTests {
    static let corpusPhoto = FileManager.default.fileExists(atPath: ServiceAPITests.photo)

    static let degrade = Fixtures.root.path + "/Tests/scans/degrade.py"

    /// Photographs each back of `backs` badly (Tests/scans/degrade.py, Pillow), in two
    /// processes at once: the pictures' paths, in the same order.
    static func photographed(_ backs: [String], seed: Int, into directory: String) async throws -> [String] {
        let half = backs.count / 2
        func run(_ part: [String], seed: Int) async throws {
            let run = try await Tools.onWorkerThread {
                try Tools.run("/usr/bin/python3", [Self.degrade, String(seed), directory] + part)
            }
            guard run.status == 0 else { throw Tools.ToolError(message: "degrade.py: \(run.stderr)") }
        }
        async let first: Void = run(Array(backs.prefix(half)), seed: seed)
        async let second: Void = run(Array(backs.dropFirst(half)), seed: seed + 1)
        _ = try await (first, second)
        return backs.map {
            directory + "/" + URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent + ".jpg"
        }
    }

    /// Runs `body` with a scratch SQLite book (its secret made on first use), closed after.
    static func withBook<T>(_ label: String, _ body: (OrderBook) async throws -> T) async throws -> T {
        let database = try await SQLiteServiceDatabase(path: try Fixtures.scratchDirectory(label) + "/service.sqlite")
        do {
            let book = OrderBook(database: database)
            try await book.migrate()
            let result = try await body(book)
            await database.close()
            return result
        } catch {
            await database.close()
            throw error
        }
    }

    @Test("200 backs photographed badly: at least 99 % read, each as its own card")
    func degradedBacksAreRead() async throws {
        let directory = try Fixtures.scratchDirectory("scans")
        try await Self.withBook("scans-book") { book in
            let scans = CardScans(book: book, policy: .default)
            // The same 200 codes every run (ids and secret from a seeded generator): a miss
            // is the same miss the next time.
            var random = SplitMix(seed: 41)
            let secret = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) }
            let code = CardCode(secret: secret)
            // Backs as customers write them: messages of several lengths and scripts, with and
            // without a sender, addresses at home and abroad.
            let messages = [
                "Bonjour de Lyon !", "Greetings from the coast 🌊\nSee you soon,\nAnna",
                String(repeating: "Il a fait beau toute la semaine. ", count: 6), "東京からこんにちは", nil,
            ]
            let recipients = [
                Recipient(
                    name: "Mme Martine Durand", address1: "12 rue des Lilas", postcode: "75011", city: "Paris",
                    country: "France"),
                Recipient(
                    name: "John Smith", address1: "1 High Street", postcode: "SW1A 1AA", city: "London", country: "UK"),
                Recipient(
                    name: "Hans Müller", address1: "Hauptstraße 5", postcode: "10115", city: "Berlin", country: "DE"),
            ]
            let sender = Recipient(
                name: "Camille Martin", address1: "3 place Bellecour", postcode: "69002", city: "Lyon",
                country: "France")
            let format = CardFormat()
            let begun = ContinuousClock.now
            let ids = (0..<200).map { _ in
                "card_"
                    + (0..<16).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &random)) }
                    .joined()
            }
            // Rendering and reading are blocking work: on threads of their own, not the
            // cooperative pool the other suites' servers answer on.
            let backs = try await Tools.onWorkerThread {
                try ids.enumerated().map { index, id in
                    let symbol = try DataMatrix(bytes: code.bytes(card: id) ?? [])
                    let back = try VersoRenderer(code: symbol).render(
                        message: messages[index % messages.count].map { CardMessage(text: $0, size: 12 + index % 5) },
                        sender: index % 3 == 0 ? sender : nil, recipient: recipients[index % recipients.count],
                        recipientIndex: 0, format: format, specFile: "scan")
                    let path = directory + String(format: "/back-%03d.png", index)
                    try back.encoded(EncodeOptions(format: .png)).write(to: URL(fileURLWithPath: path))
                    return path
                }
            }
            let rendered = ContinuousClock.now
            let photos = try await Self.photographed(backs, seed: 41, into: directory + "/photographed")
            let degraded = ContinuousClock.now
            let (read, missed, slowest) = try await Tools.onWorkerThread {
                var read = 0
                var missed: [String] = []
                var slowest = Duration.zero
                for (id, photo) in zip(ids, photos) {
                    let started = ContinuousClock.now
                    let reading = try scans.read(ImageData(contentsOfFile: photo, maxBytes: 50 << 20), secret: secret)
                    slowest = max(slowest, ContinuousClock.now - started)
                    if reading == .card(id) {
                        read += 1
                    } else {
                        // Never another card's id: a miss is no code at all.
                        #expect(reading == .noCode, "\(photo): \(reading)")
                        missed.append(photo)
                    }
                }
                return (read, missed, slowest)
            }
            #expect(read >= 198, "read \(read) of 200; missed \(missed)")
            print(
                "scans: read \(read) of 200 degraded backs (missed \(missed.map { URL(fileURLWithPath: $0).lastPathComponent })); slowest \(slowest) (debug build); rendered in "
                    + "\(rendered - begun), photographed in \(degraded - rendered), read in \(ContinuousClock.now - degraded)"
            )
        }
    }

    @Test("a code signed with another secret, or one card's signature on another id, is refused")
    func forgedCodesAreRefused() async throws {
        let stranger = try await Self.withBook("scans-other") {
            try await CardScans(book: $0, policy: .default).secret()
        }
        try await Self.withBook("scans-forged") { book in
            let scans = CardScans(book: book, policy: .default)
            let secret = try await scans.secret()
            // The same database gives the same secret; another gives another.
            #expect(try await scans.secret() == secret)
            #expect(stranger != secret && secret.count == 32)
            let id = OrderBook.newID("card"), other = OrderBook.newID("card")
            let genuine = try #require(CardCode(secret: secret).bytes(card: id))
            var swapped = try #require(CardCode(secret: secret).bytes(card: other))
            swapped.replaceSubrange(3..<19, with: genuine[3..<19].map { $0 ^ 1 })
            let cases: [([UInt8], CardScans.Reading)] = [
                (genuine, .card(id)),
                (try #require(CardCode(secret: stranger).bytes(card: id)), .forged),
                (swapped, .forged),
                (CardCode.placeholder, .forged),
            ]
            // Blocking work, on a thread of its own.
            let readings = try await Tools.onWorkerThread {
                try cases.map { bytes, _ in
                    let back = try VersoRenderer(code: try DataMatrix(bytes: bytes)).render(
                        message: CardMessage(text: "Hello"), recipient: nil, recipientIndex: 0, format: CardFormat(),
                        specFile: "scan")
                    let png = try back.encoded(EncodeOptions(format: .png))
                    return try scans.read(ImageData(copying: png, name: "back.png"), secret: secret)
                }
            }
            #expect(readings == cases.map(\.1))
            // A photo with no code at all.
            guard Self.corpusPhoto else { return }
            let plain = try await Tools.onWorkerThread {
                try scans.read(
                    ImageData(contentsOfFile: Fixtures.photo("photos/phone-4032x3024.jpg"), maxBytes: 50 << 20),
                    secret: secret)
            }
            #expect(plain == .noCode)
        }
    }
}

extension ScanTests {
    @Test("a back in a large PNG (no shrink-on-load) is read from one decode; a key's scans past their budget are 429")
    func largePNGAndBudget() async throws {
        let secret = (0..<32).map { UInt8($0) }
        let id = OrderBook.newID("card")
        let directory = try Fixtures.scratchDirectory("scan-png")
        // The back at 300 dpi in the middle of a 5,400 x 3,600 picture (19 MP), as PNG.
        let large = try await Tools.onWorkerThread {
            let back = try VersoRenderer(code: try DataMatrix(bytes: CardCode(secret: secret).bytes(card: id) ?? []))
                .render(
                    message: CardMessage(text: "Hello"), recipient: nil, recipientIndex: 0, format: CardFormat(),
                    specFile: "scan")
            let page = try back.embedded(x: 1800, y: 1200, width: 5400, height: 3600, background: [250, 250, 250])
            let path = directory + "/large.png"
            try page.encoded(EncodeOptions(format: .png)).write(to: URL(fileURLWithPath: path))
            return path
        }
        try await Self.withBook("scan-png-book") { book in
            let scans = CardScans(book: book, policy: .default)
            let reading = try await Tools.onWorkerThread {
                try scans.read(ImageData(contentsOfFile: large, maxBytes: 50 << 20), secret: secret)
            }
            #expect(reading == .card(id))
        }
        guard Self.corpusPhoto else { return }
        // One second of a worker at once, and none back within the test: the second scan is
        // refused, another key's is not.
        try await LiveService.with(.sqlite, scanBudget: (1, 1.0 / 3600)) { live in
            let key = try await live.service.book.createKey(name: "scanner").secret
            let other = try await live.service.book.createKey(name: "other").secret
            let photo = try Data(contentsOf: URL(fileURLWithPath: ServiceAPITests.photo))
            let first = try await live.send(.POST, "/v1/scans", key: key, body: photo, contentType: "image/jpeg")
            #expect(first.status == 422 && first.text.contains("No card's code"), "\(first.text)")
            let second = try await live.send(.POST, "/v1/scans", key: key, body: photo, contentType: "image/jpeg")
            #expect(second.status == 429 && second.header("Retry-After") != nil, "\(second.text)")
            #expect(second.text.contains("scans have used their share"), "\(second.text)")
            let theirs = try await live.send(.POST, "/v1/scans", key: other, body: photo, contentType: "image/jpeg")
            #expect(theirs.status == 422, "\(theirs.text)")
            let metrics = try await live.send(.GET, "/metrics", key: nil).text
            #expect(metrics.contains("cardrender_scans_throttled_total 1"), "\(metrics)")
        }
    }

    /// Page 2 (the back) of a card's press PDF as Ghostscript prints it at `dpi`: a scan of the
    /// printed card.
    static func printedBack(_ pdf: Data, dpi: Int, into directory: String, name: String) async throws -> String {
        let input = directory + "/\(name).pdf", output = directory + "/\(name).png"
        try pdf.write(to: URL(fileURLWithPath: input))
        let run = try await Tools.onWorkerThread {
            try Tools.run(
                "/usr/bin/gs",
                [
                    "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=png16m", "-r\(dpi)", "-dFirstPage=2",
                    "-dLastPage=2", "-sOutputFile=\(output)", input,
                ])
        }
        guard run.status == 0 else { throw Tools.ToolError(message: "gs: \(run.stderr)") }
        return output
    }

    @Test(
        "printed, mailed, then scanned back: returned or delivered once, with the event, by the API and the CLI",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gs"), "Ghostscript missing"),
        .enabled(if: ScanTests.corpusPhoto, "../shared/corpus is absent"),
        arguments: DatabaseKind.available)
    func scansRecordACardsEnd(database: DatabaseKind) async throws {
        try await LiveService.with(database) { live in
            let key = try await live.service.book.createKey(name: "app").secret
            let other = try await live.service.book.createKey(name: "other").secret
            let photo = try await live.upload(ServiceAPITests.photo, key: key)
            let order = #"{"spec": \#(ServiceAPITests.spec(photo: photo, recipients: 3)), "press": "eu-a6-fogra39"}"#
            let placed = try await live.send(.POST, "/v1/cards", key: key, body: Data(order.utf8))
            #expect(placed.status == 202, "\(placed.text)")
            let ids = try #require(placed.json["cards"] as? [[String: Any]]).compactMap { $0["id"] as? String }
            try #require(ids.count == 3)
            for id in ids { #expect(try await live.settled(id, key: key)["status"] as? String == "ready") }
            // Each card's back, printed and scanned at 150 dpi by Ghostscript from its PDF.
            let directory = try Fixtures.scratchDirectory("scans-api")
            var scans: [String] = []
            var pdfs: [Data] = []
            for (index, id) in ids.enumerated() {
                let pdf = try await live.send(.GET, "/v1/cards/\(id)/files/print", key: key)
                #expect(pdf.status == 200 && pdf.body.starts(with: Data("%PDF".utf8)))
                pdfs.append(pdf.body)
                scans.append(try await Self.printedBack(pdf.body, dpi: 150, into: directory, name: "card-\(index)"))
            }
            let png = { (index: Int) in try Data(contentsOf: URL(fileURLWithPath: scans[index])) }
            // Not printed yet: it cannot have come back.
            let early = try await live.send(.POST, "/v1/scans", key: key, body: try png(0), contentType: "image/png")
            #expect(early.status == 409 && early.text.contains("ready"), "\(early.text)")

            let run = try await live.send(
                .POST, "/v1/print-runs", key: key, body: Data(#"{"press": "eu-a6-fogra39", "sheet": "sra3"}"#.utf8))
            #expect(run.status == 201, "\(run.text)")
            let runID = try #require(run.json["id"] as? String)
            #expect(try await live.send(.POST, "/v1/print-runs/\(runID)/mailed", key: key).status == 200)
            let (_, cursor) = try await EventTests.events(live, key: key)

            // Returned: the first card, from its scan as a PNG.
            let returned = try await live.send(.POST, "/v1/scans", key: key, body: try png(0), contentType: "image/png")
            #expect(returned.status == 200, "\(returned.text)")
            #expect(returned.json["id"] as? String == ids[0] && returned.json["status"] as? String == "returned")
            let times = try #require(returned.json["times"] as? [String: String])
            let returnedAt = try #require(times["returned"])
            #expect(times["mailed"]! <= returnedAt)
            // Again: nothing changes; the other outcome is refused; another key's card is not found.
            let again = try await live.send(.POST, "/v1/scans", key: key, body: try png(0), contentType: "image/png")
            #expect(again.status == 200 && (again.json["times"] as? [String: String])?["returned"] == returnedAt)
            let delivered0 = try await live.send(
                .POST, "/v1/scans?outcome=delivered", key: key, body: try png(0), contentType: "image/png")
            #expect(delivered0.status == 409 && delivered0.text.contains("returned"), "\(delivered0.text)")
            let foreign = try await live.send(
                .POST, "/v1/scans", key: other, body: try png(0), contentType: "image/png")
            #expect(foreign.status == 404, "\(foreign.text)")

            // Delivered: the second card, photographed badly (a JPEG sent as image/jpeg).
            let sharp = try await Self.printedBack(pdfs[1], dpi: 300, into: directory, name: "card-1-300dpi")
            let photographed = try await Self.photographed([sharp], seed: 3, into: directory + "/photographed")
            let jpeg = try Data(contentsOf: URL(fileURLWithPath: photographed[0]))
            let delivered = try await live.send(
                .POST, "/v1/scans?outcome=delivered", key: key, body: jpeg, contentType: "image/jpeg")
            #expect(delivered.status == 200, "\(delivered.text)")
            #expect(delivered.json["id"] as? String == ids[1] && delivered.json["status"] as? String == "delivered")
            #expect((delivered.json["times"] as? [String: String])?["delivered"] != nil)

            // Refused: no code, a code this service did not sign, an outcome that is not one, no body.
            let plain = try await live.send(
                .POST, "/v1/scans", key: key, body: try Data(contentsOf: URL(fileURLWithPath: ServiceAPITests.photo)),
                contentType: "image/jpeg")
            #expect(plain.status == 422 && plain.text.contains("No card's code"), "\(plain.text)")
            let forgedCode = try #require(CardCode(secret: Array(repeating: 7, count: 32)).bytes(card: ids[2]))
            let forgedBack = try await Tools.onWorkerThread {
                try VersoRenderer(code: try DataMatrix(bytes: forgedCode)).render(
                    message: nil, recipient: nil, recipientIndex: 0, format: CardFormat(), specFile: "forged"
                ).encoded(EncodeOptions(format: .png))
            }
            let forged = try await live.send(.POST, "/v1/scans", key: key, body: forgedBack, contentType: "image/png")
            #expect(forged.status == 422 && forged.text.contains("signature"), "\(forged.text)")
            let badOutcome = try await live.send(
                .POST, "/v1/scans?outcome=lost", key: key, body: try png(2), contentType: "image/png")
            #expect(badOutcome.status == 400, "\(badOutcome.text)")
            let notAnImage = try await live.send(
                .POST, "/v1/scans", key: key, body: Data("hello".utf8), contentType: "application/octet-stream")
            #expect(notAnImage.status == 422, "\(notAnImage.text)")

            // The events, and the list's filters.
            let (events, _) = try await EventTests.events(live, key: key, after: cursor)
            #expect(events.map { $0["type"] as? String } == ["card.returned", "card.delivered"], "\(events)")
            #expect((events.first?["data"] as? [String: Any])?["id"] as? String == ids[0])
            #expect((events.last?["data"] as? [String: Any])?["status"] as? String == "delivered")
            for (status, expected) in [("returned", [ids[0]]), ("delivered", [ids[1]])] {
                let listed = try await live.send(.GET, "/v1/cards?status=\(status)", key: key)
                #expect(
                    (listed.json["cards"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } == expected)
            }

            // `cardrender scan` on the same database (SQLite: its file in the data directory).
            guard database == .sqlite else { return }
            let data = ["--data", live.directory]
            let scanned = scans
            let dry = try await Tools.onWorkerThread {
                try Tools.run(Tools.cardrender, ["scan", "--dry-run", scanned[2]] + data)
            }
            #expect(dry.status == 0 && dry.stdoutText == "\(scans[2])\t\(ids[2])\tchecked\n", "\(dry.stderr)")
            #expect(try await live.send(.GET, "/v1/cards/\(ids[2])", key: key).json["status"] as? String == "mailed")
            let recorded = try await Tools.onWorkerThread {
                try Tools.run(
                    Tools.cardrender,
                    ["scan", scanned[2], scanned[1], ServiceAPITests.photo, "--outcome", "returned"] + data)
            }
            // The first recorded; the second scanned before as delivered; the third has no code.
            #expect(recorded.status == 1)
            #expect(recorded.stdoutText == "\(scans[2])\t\(ids[2])\treturned\n", "\(recorded.stdoutText)")
            #expect(recorded.stderr.contains("\(scans[1]): the card \(ids[1]) was scanned before as delivered"))
            #expect(
                recorded.stderr.contains("\(ServiceAPITests.photo): no card's code was found"), "\(recorded.stderr)")
            let third = try await live.send(.GET, "/v1/cards/\(ids[2])", key: key).json
            #expect(third["status"] as? String == "returned")
            let (last, _) = try await EventTests.events(live, key: key, after: cursor, query: "&type=card.returned")
            #expect(last.compactMap { ($0["data"] as? [String: Any])?["id"] as? String } == [ids[0], ids[2]])
        }
    }
}
