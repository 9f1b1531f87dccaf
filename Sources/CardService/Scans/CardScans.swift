import CardKit
import ImageCore

/// Scans of cards' backs: the code found in a photo (`BackCodeScanner`), its signature
/// checked (`CardCode`), and what the scan says recorded on the card (`returned` or
/// `delivered`, with the event). The one path of `POST /v1/scans` and `cardrender scan`.
public struct CardScans: Sendable {
    /// The orders.
    public let book: OrderBook
    /// What a photo may be (formats, pixels).
    public let policy: DecodePolicy

    public init(book: OrderBook, policy: DecodePolicy) {
        self.book = book
        self.policy = policy
    }

    /// What a photo's code says.
    public enum Reading: Sendable, Equatable {
        /// The code of this service's card `id`.
        case card(String)
        /// No code of this service's format was found.
        case noCode
        /// A code in this service's format whose signature is not this service's.
        case forged
    }

    /// What a scan may record.
    public enum Outcome: String, Sendable, CaseIterable {
        case returned, delivered

        var status: CardRecord.Status { self == .returned ? .returned : .delivered }
    }

    /// What recording a scan came to.
    public enum Recorded: Sendable, Equatable {
        /// The card has the scan's status: now (`changed`), or since an earlier scan.
        case recorded(card: String, changed: Bool)
        /// No card of the key has this id (a code of another key's card is not found either).
        case notFound(card: String)
        /// The card has not been printed, so it cannot have been posted: its status.
        case notPrinted(card: String, status: String)
        /// The card was scanned before with the other outcome: its status.
        case conflict(card: String, status: String)
    }

    /// The secret that signs the codes (`OrderBook.codeSecret`): read it once for many photos.
    public func secret() async throws -> [UInt8] { try await book.codeSecret() }

    /// Finds and checks the code in `photo` (blocking: decoding and searching take tens of
    /// milliseconds).
    /// - Throws: `ImageInputError` for a photo the policy refuses, `VipsError` for one that
    ///   cannot be decoded.
    public func read(_ photo: ImageData, secret: [UInt8]) throws -> Reading {
        let scanner = BackCodeScanner(policy: policy, side: CardCode.side, prefix: CardCode.prefix)
        guard let bytes = try scanner.message(in: photo) else { return .noCode }
        switch CardCode(secret: secret).read(bytes) {
        case .card(let id): return .card(id)
        case .forged: return .forged
        case .foreign: return .noCode
        }
    }

    /// Records `outcome` on the card `id`, of `owner` (nil: any key's, for the operator).
    public func record(_ outcome: Outcome, card id: String, owner: String?) async throws -> Recorded {
        switch try await book.recordScan(owner: owner, id: id, status: outcome.status) {
        case .recorded(_, let changed): .recorded(card: id, changed: changed)
        case .notFound: .notFound(card: id)
        case .notPrinted(let card): .notPrinted(card: id, status: card.status.rawValue)
        case .conflict(let card): .conflict(card: id, status: card.status.rawValue)
        }
    }
}
