import CardKit
import Foundation
import ImageCore
import Mail
import TestSupport
import Testing
import VipsKit

@testable import CardService

/// Scans of cards' backs: the code each service card carries, found in photos taken badly
/// (turned, at an angle, blurred, JPEG at quality 40, 150 dpi), its signature checked (a forged
/// code refused), and the card recorded as returned or delivered with its event, through
/// `POST /v1/scans` and `cardrender scan`, on SQLite and on PostgreSQL.
@Suite(
    .libvips,
    .enabled(
        if: FileManager.default.fileExists(atPath: Fixtures.photo("photos/phone-4032x3024.jpg")),
        "../shared/corpus is absent"))
struct ScanTests {
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
            var ids: [String] = []
            var backs: [String] = []
            for index in 0..<200 {
                let id =
                    "card_"
                    + (0..<16).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &random)) }
                    .joined()
                let symbol = try DataMatrix(bytes: try #require(code.bytes(card: id)))
                let back = try VersoRenderer(code: symbol).render(
                    message: messages[index % messages.count].map { CardMessage(text: $0, size: 12 + index % 5) },
                    sender: index % 3 == 0 ? sender : nil, recipient: recipients[index % recipients.count],
                    recipientIndex: 0, format: format, specFile: "scan")
                let path = directory + String(format: "/back-%03d.png", index)
                try back.encoded(EncodeOptions(format: .png)).write(to: URL(fileURLWithPath: path))
                ids.append(id)
                backs.append(path)
            }
            let rendered = ContinuousClock.now
            let photos = try await Self.photographed(backs, seed: 41, into: directory + "/photographed")
            let degraded = ContinuousClock.now
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
            for (bytes, expected) in cases {
                let back = try VersoRenderer(code: try DataMatrix(bytes: bytes)).render(
                    message: CardMessage(text: "Hello"), recipient: nil, recipientIndex: 0, format: CardFormat(),
                    specFile: "scan")
                let png = try back.encoded(EncodeOptions(format: .png))
                #expect(try scans.read(ImageData(copying: png, name: "back.png"), secret: secret) == expected)
            }
            // A photo with no code at all.
            let photo = try ImageData(contentsOfFile: Fixtures.photo("photos/phone-4032x3024.jpg"), maxBytes: 50 << 20)
            #expect(try scans.read(photo, secret: secret) == .noCode)
        }
    }
}
