#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A card as the database keeps it (its events keep its public part, `PublicCard`).
struct CardRecord: Sendable, Equatable, Codable {
    /// Statuses, in the order a card goes through them.
    enum Status: String, Sendable, CaseIterable, Codable {
        case queued, rendering, ready, failed, cancelled, printed, mailed, returned, delivered

        /// Whether a card in this status has its files (rendered, whatever happened since).
        var isRendered: Bool { self == .ready || isPrinted }

        /// Whether the card has left for the press: it can no longer be cancelled.
        var isPrinted: Bool { [.printed, .mailed, .returned, .delivered].contains(self) }

        /// Whether a scan of the card's code ends its life here: it came back, or arrived.
        var isScanned: Bool { self == .returned || self == .delivered }

        /// The column that keeps when a card reached this status, for those that keep one
        /// (`queued` is `created`; `rendering` comes and goes with leases).
        var timeColumn: String? {
            switch self {
            case .queued, .rendering: nil
            default: rawValue + "_at"
            }
        }
    }

    let id: String
    let owner: String
    /// The photo's content digest.
    let photo: String
    /// The spec as JSON (one recipient at most: a card per recipient).
    let spec: String
    /// The press preset (`rgb-jpeg` or a PDF press).
    let press: String
    /// The recipient's index in the ordered spec, or nil for a card without recipients.
    let recipient: Int?
    var status: Status
    /// The print-quality verdict once rendered.
    var verdict: String?
    var error: String?
    /// The content store key of the rendered card (`FinishedCard`), once ready.
    var entryKey: String?
    var printRun: String?
    let created: Int
    /// When the card reached each status that keeps a time (milliseconds since 1970; queued is
    /// `created`).
    var times: [Status: Int] = [:]
    /// `postcard` or `letter`, decided when it was ordered (nil for cards ordered before the
    /// column: read from the spec).
    var mailClass: String?
    /// The postal warnings, decided when it was ordered (nil as `mailClass`).
    var warnings: [String]?

    /// The statuses whose time a card keeps, in the order the columns are read.
    static let timed = Status.allCases.filter { $0.timeColumn != nil }

    static let columns =
        "id, owner, photo, spec, press, recipient, status, verdict, error, entry_key, print_run, created, "
        + "mail_class, warnings, " + timed.compactMap(\.timeColumn).joined(separator: ", ")

    init(
        id: String, owner: String, photo: String, spec: String, press: String, recipient: Int?, status: Status,
        created: Int
    ) {
        self.id = id
        self.owner = owner
        self.photo = photo
        self.spec = spec
        self.press = press
        self.recipient = recipient
        self.status = status
        self.created = created
    }

    init?(row: ResultRow) {
        guard let id = row.text("id"), let owner = row.text("owner"), let photo = row.text("photo"),
            let spec = row.text("spec"), let press = row.text("press"),
            let status = row.text("status").flatMap(Status.init(rawValue:)), let created = row.int("created")
        else { return nil }
        self.init(
            id: id, owner: owner, photo: photo, spec: spec, press: press, recipient: row.int("recipient"),
            status: status, created: created)
        verdict = row.text("verdict")
        error = row.text("error")
        entryKey = row.text("entry_key")
        printRun = row.text("print_run")
        mailClass = row.text("mail_class")
        warnings = row.text("warnings").flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) }
        for status in Self.timed {
            if let column = status.timeColumn, let time = row.int(column) { times[status] = time }
        }
    }
}
