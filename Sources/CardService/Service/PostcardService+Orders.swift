import CardKit
import CardPipeline
import HTTPTypes
import Logging
import Mail
import NIOPosix
import RenderCache

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension PostcardService {
    /// An order as the API receives it: the spec (JSON, one card per recipient) and press.
    struct Order: Sendable {
        /// The spec's JSON.
        let spec: Data
        /// The spec's JSON for each card: the recipients one by one (the spec whole when it has none).
        let cardSpecs: [(json: String, recipient: Int?)]
        let press: String
        /// SHA-256 over the canonical body: what an idempotency key is checked against.
        let bodyDigest: String
    }

    /// Places `order` for `owner`: checked as `render` would check it, then one queued card
    /// per recipient, all in one transaction with the idempotency key.
    /// - Returns: the cards (JSON of `CreatedCards`) and whether they are the first answer replayed.
    /// - Throws: `Problem` 422 (spec, press, key reused with another body).
    func place(_ order: Order, idempotencyKey: String?, owner: String, answer: ([CardRecord]) throws -> String)
        async throws -> (answer: String, replayed: Bool)
    {
        guard let renderer = renderer(press: order.press) else {
            throw Problem(
                .unprocessableContent,
                "press must be one of \(pressNames.joined(separator: ", ")); received \(order.press).",
                errors: [Problem.FieldError(field: "press", detail: "not a press of this server")])
        }
        let (spec, digest) = try await spec(order.spec, owner: owner, prefix: "spec.")
        do {
            try await onPreviewThread(for: owner) {
                try renderer.check(photo: try self.photoBytes(digest), spec: spec, specFile: "spec")
            }
        } catch {
            throw Self.refusal(error, prefix: "spec.") ?? error
        }
        let now = ServiceClock.milliseconds()
        let cards = order.cardSpecs.map { card in
            var record = CardRecord(
                id: OrderBook.newID("card"), owner: owner, photo: digest, spec: card.json, press: order.press,
                recipient: card.recipient, status: .queued, created: now)
            // Decided once, kept with the card: its events show them without its spec.
            (record.mailClass, record.warnings) = postal(spec: card.json, press: order.press)
            return record
        }
        let first = try answer(cards)
        for attempt in 0..<2 {
            do {
                switch try await book.place(
                    owner: owner, idempotencyKey: idempotencyKey, bodyDigest: order.bodyDigest, cards: cards,
                    answer: first)
                {
                case .answer(let answer, let replayed):
                    if !replayed {
                        for card in cards {
                            logger.info("card \(card.id): queued (key \(owner), press \(order.press))")
                        }
                        metrics.transition(to: "queued", count: cards.count)
                    }
                    return (answer, replayed)
                case .keyReused:
                    throw Problem(
                        .unprocessableContent,
                        "Idempotency-Key \(idempotencyKey ?? "") was used before with another body; use a new key for a new order."
                    )
                }
            } catch let error as ServiceDatabaseError where error.isUniqueViolation && attempt == 0 {
                // Another node placed the same key at this moment: its answer is the one.
                continue
            }
        }
        throw Problem(.conflict, "The order with Idempotency-Key \(idempotencyKey ?? "") is being placed; retry.")
    }

    /// The mail class (`postcard` or `letter`) and postal warnings of a card of `press` whose
    /// spec is `json` (one recipient at most).
    func postal(spec json: String, press: String) -> (mailClass: String, warnings: [String]) {
        let spec = try? CardSpec.parse(Data(json.utf8), file: "spec")
        let format = configuration.presses[press]?.cardFormat ?? spec?.format ?? CardFormat()
        return (
            format.mailClass.rawValue,
            spec?.postalWarnings(postedFrom: configuration.settings.postedFrom, format: format) ?? []
        )
    }

    /// One of a ready (or printed) card's files.
    enum CardFile: String, Sendable {
        case sample, small, print
    }

    /// The bytes of `file` of `owner`'s card `id`, with its media type.
    /// - Throws: `Problem` 404 (no such card), 409 (not rendered: its status named), 503.
    func file(_ file: CardFile, card id: String, owner: String) async throws -> (Data, mediaType: String) {
        guard let card = try await book.card(owner: owner, id: id) else { throw Problem.notFound("The card \(id)") }
        guard card.status.isRendered, let key = card.entryKey.flatMap(CacheKey.init(hex:))
        else {
            throw Problem(.conflict, "The card \(id) is \(card.status.rawValue); its files exist once it is ready.")
        }
        let finished = try await previewPool.runIfActive { [configuration] in
            configuration.store.entries.entry(for: key).flatMap(FinishedCard.init(entry:))
        }
        guard let side = finished?.sides.first else {
            throw Problem(.serviceUnavailable, "The card \(id)'s files cannot be read from the store now; retry later.")
        }
        switch file {
        case .sample: return (side.sample, "image/jpeg")
        case .small: return (side.small, "image/png")
        case .print:
            if card.press != Self.rgbJPEG { return (side.print, "application/pdf") }
            return (side.print, "image/jpeg")
        }
    }

    /// Renders a claimed card into the store and records its result; a store that cannot
    /// be written puts the card back in the queue (claimed again after a back-off). The
    /// lease is renewed every third of its length while the render runs, so a slow render
    /// is never taken over by another node.
    /// - Parameter lease: the lease's length in milliseconds.
    func render(_ claim: OrderBook.Claim, leaseMilliseconds lease: Int) async {
        let card = claim.card
        let heartbeat = Task { [book, logger] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(max(50, lease / 3)))
                guard !Task.isCancelled else { return }
                if (try? await book.renew(claim, leaseMilliseconds: lease)) == false {
                    logger.notice("card \(card.id): no longer this node's (cancelled, or taken over)")
                    return
                }
            }
        }
        defer { heartbeat.cancel() }
        let code: [UInt8]
        do {
            code = try await CardCode(secret: cardCodeSecret()).bytes(card: card.id) ?? []
        } catch {
            // The database, for a moment: the card waits in the queue, as for a store down.
            logger.warning("card \(card.id): put back in the queue: the card-code secret cannot be read (\(error))")
            metrics.transition(to: "released")
            try? await book.release(claim)
            return
        }
        do {
            guard !code.isEmpty else {
                throw Problem(.unprocessableContent, "the card id \(card.id) is not one a code can carry")
            }
            let made = try await renderPool.runIfActive { [configuration] in
                let photo = try self.photoBytes(card.photo)
                var spec = try CardSpec.parse(Data(card.spec.utf8), file: "card \(card.id)")
                // The card's own code on its back: its id, signed.
                spec.backCode = code
                guard let renderer = self.renderer(press: card.press) else {
                    throw Problem(.unprocessableContent, "the press \(card.press) is not one of this server's")
                }
                let maker = CardMaker(renderer: renderer, cache: configuration.store)
                let made = try maker.card(photo: photo, digest: card.photo, spec: spec, specFile: "card \(card.id)")
                // Found on this node's disk: stored again, so that the shared store holds it
                // too (a store that failed after the disk copy was written).
                if made.cached, let key = made.key { try maker.store(made.card, for: key) }
                return made
            }
            let verdict = made.card.record.quality.rawValue
            if try await book.finish(claim, status: .ready, verdict: verdict, error: nil, entryKey: made.key?.hex) {
                logger.info("card \(card.id): ready (print quality \(verdict)\(made.cached ? ", from the store" : ""))")
                metrics.transition(to: "ready")
            } else {
                logger.notice("card \(card.id): rendered, but no longer this node's (cancelled, or taken over)")
            }
        } catch let error as CacheError {
            logger.warning("card \(card.id): put back in the queue: the store cannot be written (\(error))")
            metrics.transition(to: "released")
            try? await book.release(claim)
        } catch let problem as Problem where problem.status == .serviceUnavailable {
            logger.warning("card \(card.id): put back in the queue: \(problem.detail)")
            metrics.transition(to: "released")
            try? await book.release(claim)
        } catch {
            let text =
                (error as? Problem)?.detail ?? ErrorText.describe(error, file: "card \(card.id)")
            do {
                if try await book.finish(claim, status: .failed, verdict: nil, error: text, entryKey: nil) {
                    logger.error("card \(card.id): failed: \(text)")
                    metrics.transition(to: "failed")
                }
            } catch {
                logger.warning("card \(card.id): its failure cannot be recorded (\(error)); the lease will run out")
            }
        }
    }
}
