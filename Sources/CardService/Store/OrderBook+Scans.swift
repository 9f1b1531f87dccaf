#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension OrderBook {
    /// The service's secret that signs the cards' codes (32 random bytes): made by the first
    /// node that asks, then the same for every node and every process on the database.
    func codeSecret() async throws -> [UInt8] {
        let read = "SELECT value FROM service_secrets WHERE name = 'card-code'"
        var rows = try await database.execute(read, [])
        if rows.isEmpty {
            var generator = SystemRandomNumberGenerator()
            let fresh = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            // Two nodes at once: the first insert stands, and both read it.
            _ = try await database.execute(
                "INSERT INTO service_secrets (name, value, created) VALUES ('card-code', $1, $2) ON CONFLICT (name) DO NOTHING",
                [.text(Data(fresh).base64EncodedString()), .int(ServiceClock.milliseconds())])
            rows = try await database.execute(read, [])
        }
        guard let text = rows.first?.text("value"), let secret = Data(base64Encoded: text), secret.count >= 16 else {
            throw ServiceDatabaseError(
                reason: "the card-code secret in service_secrets is not 16 or more bytes of base64", code: nil)
        }
        return Array(secret)
    }

    /// What recording a scan came to.
    enum Scanned: Sendable {
        /// The card is in the scan's status: now (`changed`), or since an earlier scan.
        case recorded(CardRecord, changed: Bool)
        /// No such card (of this owner).
        case notFound
        /// The card has not been printed: it cannot have been posted.
        case notPrinted(CardRecord)
        /// The card was scanned already with the other status.
        case conflict(CardRecord)
    }

    /// Records that the card `id` came back (`returned`) or was delivered, from a scan of its
    /// code, with its event; `owner` nil for the operator (`cardrender scan`), who may scan
    /// any key's cards. A printed or mailed card takes the status; scanning it again with the
    /// same status changes nothing.
    func recordScan(owner: String?, id: String, status: CardRecord.Status) async throws -> Scanned {
        precondition(status.isScanned, "a scan records returned or delivered")
        let dialect = database.dialect
        let column = status == .returned ? "returned_at" : "delivered_at"
        let whose = owner == nil ? "" : " AND owner = $3"
        let values: [SQLValue] = owner.map { [.text($0)] } ?? []
        let changed = try await database.transaction { sql in
            let card = try await sql.execute(
                """
                UPDATE cards SET status = '\(status.rawValue)', updated = $2, \(column) = $2
                WHERE id = $1\(whose) AND status IN ('printed', 'mailed')
                RETURNING \(CardRecord.columns)
                """, [.text(id), .int(ServiceClock.milliseconds())] + values
            ).first.flatMap(CardRecord.init(row:))
            try await Self.write(card.flatMap(EventRecord.New.card).map { [$0] } ?? [], in: sql, dialect: dialect)
            return card
        }
        if let changed { return .recorded(changed, changed: true) }
        let rows = try await database.execute(
            "SELECT \(CardRecord.columns) FROM cards WHERE id = $1\(owner == nil ? "" : " AND owner = $2")",
            [.text(id)] + values)
        guard let card = rows.first.flatMap(CardRecord.init(row:)) else { return .notFound }
        if card.status == status { return .recorded(card, changed: false) }
        return card.status.isScanned ? .conflict(card) : .notPrinted(card)
    }
}
