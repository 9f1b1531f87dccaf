/// A card as the database keeps it.
struct CardRecord: Sendable, Equatable {
    /// Statuses, in the order a card goes through them.
    enum Status: String, Sendable, CaseIterable {
        case queued, rendering, ready, failed, cancelled, printed
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

    static let columns =
        "id, owner, photo, spec, press, recipient, status, verdict, error, entry_key, print_run, created"

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
    }
}
