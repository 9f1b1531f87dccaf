/// A webhook endpoint as the database keeps it.
struct WebhookEndpointRecord: Sendable, Equatable, Codable {
    let id: String
    let owner: String
    /// Where the events are sent (`https://`, or a loopback `http://` when the server allows).
    var url: String
    /// The event types it receives; empty for every type.
    var types: [EventRecord.Kind]
    var description: String
    /// `whsec_` and the key in base64: what signs each message.
    var secret: String
    /// The secret it had before the last rotation, still signing beside the new one until
    /// `previousUntil`.
    var previousSecret: String?
    var previousUntil: Int?
    /// Since when every delivery to it has failed (nil after one that succeeded).
    var failingSince: Int?
    /// When it was disabled, for failing too long or because its key was revoked (nil while it
    /// receives events).
    var disabled: Int?
    /// When it was last replayed (replays are rate-limited).
    var replayed: Int?
    let created: Int

    static let columns =
        "id, owner, url, types, description, secret, previous_secret, previous_until, failing_since, disabled, "
        + "replayed, created"

    /// The types as the table keeps them: `*`, or `,a,b,` (so a type matches as `%,type,%`).
    static func column(_ types: [EventRecord.Kind]) -> String {
        types.isEmpty ? "*" : "," + types.map(\.rawValue).joined(separator: ",") + ","
    }

    init(
        id: String, owner: String, url: String, types: [EventRecord.Kind], description: String, secret: String,
        created: Int
    ) {
        self.id = id
        self.owner = owner
        self.url = url
        self.types = types
        self.description = description
        self.secret = secret
        self.created = created
    }

    init?(row: ResultRow) {
        guard let id = row.text("id"), let owner = row.text("owner"), let url = row.text("url"),
            let types = row.text("types"), let description = row.text("description"),
            let secret = row.text("secret"), let created = row.int("created")
        else { return nil }
        self.init(
            id: id, owner: owner, url: url,
            types: types == "*"
                ? [] : types.split(separator: ",").compactMap { EventRecord.Kind(rawValue: String($0)) },
            description: description, secret: secret, created: created)
        previousSecret = row.text("previous_secret")
        previousUntil = row.int("previous_until")
        failingSince = row.int("failing_since")
        disabled = row.int("disabled")
        replayed = row.int("replayed")
    }

    /// The secrets that sign a message sent at `now`: the current one, and the previous one
    /// while it is still honoured.
    func signingSecrets(at now: Int) -> [String] {
        guard let previousSecret, let previousUntil, now < previousUntil else { return [secret] }
        return [secret, previousSecret]
    }
}
