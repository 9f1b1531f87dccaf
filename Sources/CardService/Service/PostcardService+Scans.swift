import CardKit
import HTTPTypes
import ImageCore
import Logging
import NIOPosix
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension PostcardService {
    /// The service's scans (`CardScans`), under its decode policy.
    var scans: CardScans { CardScans(book: book, policy: configuration.settings.policy) }

    /// Records `owner`'s card as `outcome` from a photo of its back (`POST /v1/scans`): the
    /// code found and checked on a preview thread, then recorded with its event.
    /// - Returns: the card as it is now.
    /// - Throws: `Problem`: 422 for a photo refused, with no code, or with a code not signed by
    ///   this service; 404 for a card not of this key; 409 for one not printed, or scanned
    ///   before with the other outcome; 429 for a key whose scans spent their budget.
    func scan(_ bytes: Data, owner: String, outcome: CardScans.Outcome) async throws -> CardRecord {
        if let wait = scanBudget.wait(owner) {
            metrics.scanThrottled()
            throw Problem.retryLater(
                "This API key's scans have used their share of the server's work (\(Int(configuration.scanBudget.burst)) s of a worker at once, then \(configuration.scanBudget.perSecond) s a second); retry after \(wait) s.",
                after: wait)
        }
        let scans = self.scans
        let secret = try await cardCodeSecret()
        let started = ContinuousClock.now
        let reading: CardScans.Reading
        let budget = scanBudget
        do {
            reading = try await onPreviewThread(for: owner) {
                // The worker's time is charged to the key, whatever the scan finds: the wait for
                // the worker is not.
                let working = ContinuousClock.now
                defer {
                    let spent = ContinuousClock.now - working
                    budget.charge(
                        owner,
                        tokens: Double(spent.components.seconds) + Double(spent.components.attoseconds) / 1e18)
                }
                return try scans.read(ImageData(copying: bytes, name: "the photo"), secret: secret)
            }
        } catch let error as ImageInputError {
            throw Problem(.unprocessableContent, "The photo is refused: \(error)")
        } catch let error as VipsError {
            throw Problem(.unprocessableContent, "The photo cannot be read: libvips refuses it (\(error)).")
        }
        metrics.scan(ContinuousClock.now - started)
        let id: String
        switch reading {
        case .noCode:
            throw Problem(
                .unprocessableContent,
                "No card's code was found in the photo: photograph the card's back whole, flat and in focus, with the square code (bottom right of the message half) at least 2 cm wide in the picture."
            )
        case .forged:
            logger.warning("scan by key \(owner): a code in the card-code format whose signature is not this service's")
            throw Problem(
                .unprocessableContent,
                "The code in the photo is not one of this service's: its signature does not match (a card printed by someone else, or a changed code)."
            )
        case .card(let card): id = card
        }
        switch try await scans.record(outcome, card: id, owner: owner) {
        case .recorded(_, let changed):
            if changed {
                logger.info("card \(id): \(outcome.rawValue) (scanned)")
                metrics.transition(to: outcome.rawValue)
            }
        case .notFound:
            throw Problem.notFound("The card \(id)")
        case .notPrinted(_, let status):
            throw Problem(.conflict, "The card \(id) is \(status): only a printed or mailed card can be scanned back.")
        case .conflict(_, let status):
            throw Problem(
                .conflict, "The card \(id) was scanned before as \(status); a card is returned or delivered once.")
        }
        guard let card = try await book.card(owner: owner, id: id) else { throw Problem.notFound("The card \(id)") }
        return card
    }
}
