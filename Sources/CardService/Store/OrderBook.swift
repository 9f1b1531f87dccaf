import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Everything the service keeps in its database, as operations: API keys, photos, orders
/// (idempotent), cards and their queue (claimed with a lease), print runs. The SQL is
/// written once for SQLite and PostgreSQL (`SQLExecutor`).
public struct OrderBook: Sendable {
    let database: any ServiceDatabase

    public init(database: any ServiceDatabase) {
        self.database = database
    }

    /// Applies the migrations not yet applied (`Migrations`).
    /// - Returns: the versions applied now.
    @discardableResult
    public func migrate() async throws -> [Int] {
        try await Migrations.apply(to: database)
    }

    // MARK: API keys

    /// Creates a key named `name`: the secret is returned once and only its SHA-256 is kept.
    /// - Returns: the key's id and its secret.
    public func createKey(name: String) async throws -> (id: String, secret: String) {
        let id = Self.newID("key")
        let secret = "crk_" + Self.randomHex(32)
        _ = try await database.execute(
            "INSERT INTO api_keys (id, name, hash, created) VALUES ($1, $2, $3, $4)",
            [.text(id), .text(name), .text(Self.hash(secret)), .int(ServiceClock.milliseconds())])
        return (id, secret)
    }

    /// The hashes of the keys in use (not revoked).
    func activeKeyHashes() async throws -> Set<String> {
        Set(
            try await database.execute("SELECT hash FROM api_keys WHERE revoked IS NULL", []).compactMap {
                $0.text("hash")
            })
    }

    /// Whether `secret` has a key's form (`crk_` and 64 lower-case hex digits): anything else
    /// is refused without a lookup.
    static func isKeyShaped(_ secret: String) -> Bool {
        secret.utf8.count == 68 && secret.hasPrefix("crk_")
            && secret.utf8.dropFirst(4).allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The id of the key whose secret is `secret`, or nil when there is none or it was revoked.
    func keyID(secret: String) async throws -> String? {
        try await database.execute(
            "SELECT id FROM api_keys WHERE hash = $1 AND revoked IS NULL", [.text(Self.hash(secret))]
        ).first?.text("id")
    }

    /// An API key as `cardrender keys list` shows it (never its secret, which is not kept).
    public struct KeyInfo: Sendable, Equatable {
        public let id: String
        public let name: String
        /// Milliseconds since 1970.
        public let created: Int
        /// When it was revoked, nil while it is in use.
        public let revoked: Int?
        /// When its secret was last replaced, nil if never.
        public let rotated: Int?
    }

    /// Every key, oldest first.
    public func keys() async throws -> [KeyInfo] {
        try await database.execute("SELECT id, name, created, revoked, rotated FROM api_keys ORDER BY created, id", [])
            .compactMap { row in
                guard let id = row.text("id"), let name = row.text("name"), let created = row.int("created") else {
                    return nil
                }
                return KeyInfo(
                    id: id, name: name, created: created, revoked: row.int("revoked"), rotated: row.int("rotated"))
            }
    }

    /// The keys `nameOrID` names: the key with that id, else every key with that name.
    public func keys(named nameOrID: String) async throws -> [KeyInfo] {
        let all = try await keys()
        if let key = all.first(where: { $0.id == nameOrID }) { return [key] }
        return all.filter { $0.name == nameOrID }
    }

    /// Revokes key `id`: every node refuses its secret from the next request on (keys are
    /// looked up on each request), and its webhook endpoints are disabled. Its photos, cards
    /// and runs stay.
    /// - Returns: false when there is no such key or it was revoked already.
    public func revokeKey(id: String) async throws -> Bool {
        try await database.transaction { sql in
            let revoked =
                !(try await sql.execute(
                    "UPDATE api_keys SET revoked = $2 WHERE id = $1 AND revoked IS NULL RETURNING id",
                    [.text(id), .int(ServiceClock.milliseconds())]
                ).isEmpty)
            // Its webhook endpoints stop in the same transaction (an attempt in flight is
            // cancelled by its sender), whatever happens to its cards afterwards.
            if revoked { try await Self.disableEndpoints(owner: id, in: sql) }
            return revoked
        }
    }

    /// Gives key `id` a new secret, refusing the old one at once; the key keeps its id, so
    /// its photos, cards and runs stay its own.
    /// - Returns: the new secret, or nil when there is no such key in use.
    public func rotateKey(id: String) async throws -> String? {
        let secret = "crk_" + Self.randomHex(32)
        let rows = try await database.execute(
            "UPDATE api_keys SET hash = $2, rotated = $3 WHERE id = $1 AND revoked IS NULL RETURNING id",
            [.text(id), .text(Self.hash(secret)), .int(ServiceClock.milliseconds())])
        return rows.isEmpty ? nil : secret
    }

    // MARK: Photos

    /// Records that `owner` uploaded the photo `digest`.
    /// - Returns: whether it is new to this owner.
    func addPhoto(owner: String, digest: String, width: Int, height: Int, format: String) async throws -> Bool {
        let rows = try await database.execute(
            """
            INSERT INTO photos (owner, digest, width, height, format, created) VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT DO NOTHING RETURNING digest
            """,
            [.text(owner), .text(digest), .int(width), .int(height), .text(format), .int(ServiceClock.milliseconds())])
        return !rows.isEmpty
    }

    /// The photo `digest` of `owner`, or nil when this owner has none by that id.
    func photo(owner: String, digest: String) async throws -> (width: Int, height: Int, format: String)? {
        guard
            let row = try await database.execute(
                "SELECT width, height, format FROM photos WHERE owner = $1 AND digest = $2",
                [.text(owner), .text(digest)]
            ).first, let width = row.int("width"), let height = row.int("height"), let format = row.text("format")
        else { return nil }
        return (width, height, format)
    }

    // MARK: Orders

    /// What placing an order came to.
    enum Placed: Sendable, Equatable {
        /// The answer (JSON), new or that of the first order with the same key and body.
        case answer(String, replayed: Bool)
        /// The idempotency key was used before with another body.
        case keyReused
    }

    /// Places an order: its cards queued and its answer kept under the idempotency key, in
    /// one transaction. The same key and body give the first answer again.
    func place(
        owner: String, idempotencyKey: String?, bodyDigest: String, cards: [CardRecord], answer: String
    ) async throws -> Placed {
        try await database.transaction { sql in
            if let idempotencyKey {
                let existing = try await sql.execute(
                    "SELECT body_digest, answer FROM orders WHERE owner = $1 AND idempotency_key = $2",
                    [.text(owner), .text(idempotencyKey)])
                if let row = existing.first {
                    return row.text("body_digest") == bodyDigest
                        ? .answer(row.text("answer") ?? "", replayed: true) : .keyReused
                }
                // Two nodes placing the same key at once: the second insert fails its unique key.
                _ = try await sql.execute(
                    "INSERT INTO orders (owner, idempotency_key, body_digest, answer, created) VALUES ($1, $2, $3, $4, $5)",
                    [
                        .text(owner), .text(idempotencyKey), .text(bodyDigest), .text(answer),
                        .int(ServiceClock.milliseconds()),
                    ])
            }
            for card in cards {
                _ = try await sql.execute(
                    """
                    INSERT INTO cards (id, owner, photo, spec, press, recipient, status, created, updated, mail_class,
                    warnings) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10)
                    """,
                    [
                        .text(card.id), .text(card.owner), .text(card.photo), .text(card.spec), .text(card.press),
                        .int(card.recipient), .text(card.status.rawValue), .int(card.created), .text(card.mailClass),
                        .text(card.warnings.map(EventRecord.json)),
                    ])
            }
            try await Self.write(cards.compactMap(EventRecord.New.card), in: sql, dialect: database.dialect)
            return .answer(answer, replayed: false)
        }
    }

    // MARK: Cards

    /// The card `id` of `owner`, or nil.
    func card(owner: String, id: String) async throws -> CardRecord? {
        try await database.execute(
            "SELECT \(CardRecord.columns) FROM cards WHERE id = $1 AND owner = $2", [.text(id), .text(owner)]
        ).first.flatMap(CardRecord.init(row:))
    }

    /// A page of `owner`'s cards, newest first, after the cursor `after` (`created.id`).
    /// - Returns: the cards and the cursor of the next page (nil on the last).
    func cards(owner: String, status: CardRecord.Status?, limit: Int, after: (created: Int, id: String)?)
        async throws -> (cards: [CardRecord], next: (created: Int, id: String)?)
    {
        var sql = "SELECT \(CardRecord.columns) FROM cards WHERE owner = $1"
        var binds: [SQLValue] = [.text(owner)]
        if let status {
            binds.append(.text(status.rawValue))
            sql += " AND status = $\(binds.count)"
        }
        if let after {
            binds += [.int(after.created), .text(after.id)]
            sql += " AND (created < $\(binds.count - 1) OR (created = $\(binds.count - 1) AND id < $\(binds.count)))"
        }
        binds.append(.int(limit + 1))
        sql += " ORDER BY created DESC, id DESC LIMIT $\(binds.count)"
        let cards = try await database.execute(sql, binds).compactMap(CardRecord.init(row:))
        guard cards.count > limit else { return (cards, nil) }
        let page = Array(cards.prefix(limit))
        return (page, (page[limit - 1].created, page[limit - 1].id))
    }

    /// What cancelling a card came to.
    enum Cancelled: Sendable {
        /// Cancelled now (`changed`), or found cancelled already.
        case cancelled(CardRecord, changed: Bool)
        case notFound
        case printed(CardRecord)
    }

    /// Cancels `owner`'s card `id` unless it is printed (cancelling a cancelled card is no
    /// error), with its event.
    func cancel(owner: String, id: String) async throws -> Cancelled {
        let dialect = database.dialect
        let cancelled = try await database.transaction { sql in
            let card = try await sql.execute(
                """
                UPDATE cards SET status = 'cancelled', lease_token = NULL, updated = $3, cancelled_at = $3
                WHERE id = $1 AND owner = $2 AND status IN ('queued', 'rendering', 'ready', 'failed')
                RETURNING \(CardRecord.columns)
                """, [.text(id), .text(owner), .int(ServiceClock.milliseconds())]
            ).first.flatMap(CardRecord.init(row:))
            try await Self.write(card.flatMap(EventRecord.New.card).map { [$0] } ?? [], in: sql, dialect: dialect)
            return card
        }
        if let cancelled { return .cancelled(cancelled, changed: true) }
        guard let card = try await card(owner: owner, id: id) else { return .notFound }
        return card.status.isPrinted ? .printed(card) : .cancelled(card, changed: false)
    }

    // MARK: Identifiers

    /// A new identifier: `prefix_` and 128 random bits in hex.
    static func newID(_ prefix: String) -> String { prefix + "_" + randomHex(16) }

    static func randomHex(_ bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 15, radix: 16)
        }.joined()
    }

    static func hash(_ secret: String) -> String {
        SHA256.hash(data: Array(secret.utf8)).map { String($0 >> 4, radix: 16) + String($0 & 15, radix: 16) }
            .joined()
    }
}
