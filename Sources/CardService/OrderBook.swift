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
    /// looked up on each request). Its photos, cards and runs stay.
    /// - Returns: false when there is no such key or it was revoked already.
    public func revokeKey(id: String) async throws -> Bool {
        !(try await database.execute(
            "UPDATE api_keys SET revoked = $2 WHERE id = $1 AND revoked IS NULL RETURNING id",
            [.text(id), .int(ServiceClock.milliseconds())]
        ).isEmpty)
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
                    INSERT INTO cards (id, owner, photo, spec, press, recipient, status, created, updated)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
                    """,
                    [
                        .text(card.id), .text(card.owner), .text(card.photo), .text(card.spec), .text(card.press),
                        .int(card.recipient), .text(card.status.rawValue), .int(card.created),
                    ])
            }
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

    /// Cancels `owner`'s card `id` unless it is printed (cancelling a cancelled card is no error).
    func cancel(owner: String, id: String) async throws -> Cancelled {
        let rows = try await database.execute(
            """
            UPDATE cards SET status = 'cancelled', lease_token = NULL, updated = $3
            WHERE id = $1 AND owner = $2 AND status IN ('queued', 'rendering', 'ready', 'failed')
            RETURNING \(CardRecord.columns)
            """, [.text(id), .text(owner), .int(ServiceClock.milliseconds())])
        if let card = rows.first.flatMap(CardRecord.init(row:)) { return .cancelled(card, changed: true) }
        guard let card = try await card(owner: owner, id: id) else { return .notFound }
        return card.status == .printed ? .printed(card) : .cancelled(card, changed: false)
    }

    // MARK: The queue

    /// A card claimed for rendering, with the lease's token.
    struct Claim: Sendable, Equatable {
        let card: CardRecord
        let token: String
        /// The node whose lease ran out, when the card was taken over from one.
        var takenOverFrom: String? = nil
    }

    /// What a claim found: the card claimed, if any, and the cards failed for having been
    /// claimed too often, with their reason.
    struct ClaimResult: Sendable {
        var claim: Claim?
        var failed: [(id: String, error: String)] = []
    }

    /// The cards of this database by status, and how many wait to be rendered (queued, or
    /// rendering under a lease that ran out).
    func statusCounts() async throws -> (byStatus: [String: Int], waiting: Int) {
        var counts: [String: Int] = [:]
        for row in try await database.execute("SELECT status, COUNT(*) AS n FROM cards GROUP BY status", []) {
            if let status = row.text("status") { counts[status] = row.int("n") ?? 0 }
        }
        let waiting =
            try await database.execute(
                """
                SELECT COUNT(*) AS n FROM cards WHERE status = 'queued'
                OR (status = 'rendering' AND lease_until < \(database.dialect.now))
                """, []
            ).first?.int("n") ?? 0
        return (counts, waiting)
    }

    /// Claims the oldest queued card, or one whose renderer's lease ran out (its node died),
    /// for `lease` milliseconds of the database's clock. A card claimed `maxAttempts` times
    /// without finishing is failed instead: it stops every node that renders it, or the
    /// store cannot take it.
    /// - Parameter node: this node's name, the start of the lease's token (which node holds
    ///   a card shows in the table).
    func claim(leaseMilliseconds lease: Int, node: String = "node", maxAttempts: Int = 5) async throws -> ClaimResult {
        let token = node + "/" + Self.randomHex(16)
        let dialect = database.dialect
        return try await database.transaction { sql in
            guard let now = try await sql.execute("SELECT \(dialect.now) AS now", []).first?.int("now") else {
                throw ServiceDatabaseError(reason: "the database gave no time", code: nil)
            }
            var result = ClaimResult()
            result.failed = try await sql.execute(
                """
                UPDATE cards SET status = 'failed', lease_token = NULL, updated = $2,
                error = 'rendering did not finish after ' || attempts || ' attempts (the node rendering it died, or the store could not be written, each time)'
                WHERE status IN ('queued', 'rendering') AND lease_until < $2 AND attempts >= $1
                RETURNING id, error
                """, [.int(maxAttempts), .int(now)]
            ).compactMap { row in row.text("id").map { ($0, row.text("error") ?? "") } }
            // A queued card with a lease_until was put back (`release`): it waits until then.
            // The one chosen is read first (locked on PostgreSQL), so that a card taken over
            // from a node whose lease ran out is known as such.
            guard
                let chosen = try await sql.execute(
                    """
                    SELECT id, status, lease_token FROM cards WHERE status IN ('queued', 'rendering')
                    AND (lease_until IS NULL OR lease_until < $1)
                    ORDER BY created, id LIMIT 1\(dialect.skipLocked)
                    """, [.int(now)]
                ).first, let id = chosen.text("id")
            else { return result }
            let rows = try await sql.execute(
                """
                UPDATE cards SET status = 'rendering', lease_token = $1, lease_until = $2, attempts = attempts + 1,
                updated = $3
                WHERE id = $4 RETURNING \(CardRecord.columns)
                """, [.text(token), .int(now + lease), .int(now), .text(id)])
            let previous = chosen.text("status") == "rendering" ? chosen.text("lease_token") : nil
            result.claim = rows.first.flatMap(CardRecord.init(row:)).map {
                Claim(card: $0, token: token, takenOverFrom: previous.map { String($0.prefix { $0 != "/" }) })
            }
            return result
        }
    }

    /// Puts back in the queue every card `node` was rendering when it stopped: a node that
    /// starts again under the same `--node-name` takes its own cards up at once, without
    /// waiting for their leases to run out.
    /// - Returns: how many cards were put back.
    @discardableResult
    func recover(node: String) async throws -> [String] {
        try await database.execute(
            """
            UPDATE cards SET status = 'queued', lease_token = NULL, lease_until = NULL
            WHERE status = 'rendering' AND substr(lease_token, 1, length($1)) = $1 RETURNING id
            """, [.text(node + "/")]
        ).compactMap { $0.text("id") }
    }

    /// Extends a claim's lease by `lease` milliseconds from now (the renderer is alive).
    /// - Returns: false when the claim no longer holds the card (cancelled, or taken over).
    func renew(_ claim: Claim, leaseMilliseconds lease: Int) async throws -> Bool {
        !(try await database.execute(
            """
            UPDATE cards SET lease_until = \(database.dialect.now) + $3
            WHERE id = $1 AND lease_token = $2 AND status = 'rendering' RETURNING id
            """, [.text(claim.card.id), .text(claim.token), .int(lease)]
        ).isEmpty)
    }

    /// Records a claimed card's result, if its lease is still this claim's (a card cancelled,
    /// or taken over after the lease ran out, is not touched).
    /// - Returns: whether the result was recorded.
    @discardableResult
    func finish(_ claim: Claim, status: CardRecord.Status, verdict: String?, error: String?, entryKey: String?)
        async throws -> Bool
    {
        let rows = try await database.execute(
            """
            UPDATE cards SET status = $3, verdict = $4, error = $5, entry_key = $6, lease_token = NULL,
            readied = readied + $7, updated = $8
            WHERE id = $1 AND lease_token = $2 AND status = 'rendering' RETURNING id
            """,
            [
                .text(claim.card.id), .text(claim.token), .text(status.rawValue), .text(verdict), .text(error),
                .text(entryKey), .int(status == .ready ? 1 : 0), .int(ServiceClock.milliseconds()),
            ])
        return !rows.isEmpty
    }

    /// Puts a claimed card back in the queue, to be claimed again after `backoff`
    /// milliseconds (its store could not be written: try later, not at once).
    func release(_ claim: Claim, backoffMilliseconds backoff: Int = 5_000) async throws {
        _ = try await database.execute(
            """
            UPDATE cards SET status = 'queued', lease_token = NULL, lease_until = \(database.dialect.now) + $3
            WHERE id = $1 AND lease_token = $2
            """, [.text(claim.card.id), .text(claim.token), .int(backoff)])
    }

    /// How many times each of `owner`'s cards became ready (1 each, or the queue is wrong).
    func readiedCounts(owner: String) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try await database.execute("SELECT id, readied FROM cards WHERE owner = $1", [.text(owner)]) {
            if let id = row.text("id") { counts[id] = row.int("readied") ?? 0 }
        }
        return counts
    }

    // MARK: Print runs

    /// `owner`'s ready cards of `press`, oldest first, not yet in a run.
    func readyCards(owner: String, press: String) async throws -> [CardRecord] {
        try await database.execute(
            """
            SELECT \(CardRecord.columns) FROM cards WHERE owner = $1 AND press = $2 AND status = 'ready'
            ORDER BY created, id
            """, [.text(owner), .text(press)]
        ).compactMap(CardRecord.init(row:))
    }

    /// Records a run and marks its cards printed, all or none.
    /// - Returns: false when one of the cards is no longer ready (cancelled, or printed by
    ///   another run meanwhile): nothing is recorded.
    func recordRun(_ run: PrintRunRecord) async throws -> Bool {
        try await database.transaction { sql in
            for card in run.cards {
                let updated = try await sql.execute(
                    """
                    UPDATE cards SET status = 'printed', print_run = $1, updated = $4
                    WHERE id = $2 AND owner = $3 AND status = 'ready' RETURNING id
                    """, [.text(run.id), .text(card), .text(run.owner), .int(ServiceClock.milliseconds())])
                if updated.isEmpty { throw RunConflict() }
            }
            _ = try await sql.execute(
                """
                INSERT INTO print_runs (id, owner, press, sheet, cards, sheets, manifest, created)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                """,
                [
                    .text(run.id), .text(run.owner), .text(run.press), .text(run.sheet),
                    .text(run.cards.joined(separator: ",")), .text(run.sheets.joined(separator: ",")),
                    .text(run.manifest), .int(ServiceClock.milliseconds()),
                ])
            return true
        }
    }

    /// Thrown inside `recordRun`'s transaction to roll it back.
    private struct RunConflict: Error {}

    /// `owner`'s run `id`, or nil.
    func run(owner: String, id: String) async throws -> PrintRunRecord? {
        guard
            let row = try await database.execute(
                "SELECT id, owner, press, sheet, cards, sheets, manifest FROM print_runs WHERE id = $1 AND owner = $2",
                [.text(id), .text(owner)]
            ).first, let press = row.text("press"), let sheet = row.text("sheet")
        else { return nil }
        let list = { (column: String) in (row.text(column) ?? "").split(separator: ",").map(String.init) }
        return PrintRunRecord(
            id: id, owner: owner, press: press, sheet: sheet, cards: list("cards"), sheets: list("sheets"),
            manifest: row.text("manifest"))
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

/// A print run as the database keeps it.
struct PrintRunRecord: Sendable, Equatable {
    let id: String
    let owner: String
    let press: String
    let sheet: String
    /// The cards in the order they leave the press: sorted by destination, the order the
    /// cut-and-stack sheets give once cut and stacked (`CutAndStack`).
    let cards: [String]
    /// The content store keys of the sheets' PDFs, one per sheet.
    let sheets: [String]
    /// The content store key of the deposit manifest (parts `json` and `csv`); nil for a run
    /// recorded before runs kept one.
    var manifest: String?
}
