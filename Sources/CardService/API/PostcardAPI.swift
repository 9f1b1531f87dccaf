import CardKit
import HTTPTypes
import ImageCore
import Logging
import Mail
import OpenAPIRuntime
import RenderCache

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `/v1` operations of `openapi.yaml` (their types generated into Generated/), each a
/// thin translation to and from `PostcardService`. Errors are thrown as `Problem`s, which
/// `ServiceMiddleware` answers as `application/problem+json`.
struct PostcardAPI: APIProtocol {
    let service: PostcardService

    /// The key `ServiceMiddleware` authenticated.
    var owner: String {
        get throws {
            guard let id = RequestOwner.id else { throw Problem(.unauthorized, "No API key was given.") }
            return id
        }
    }

    func uploadPhoto(_ input: Operations.UploadPhoto.Input) async throws -> Operations.UploadPhoto.Output {
        // ServiceMiddleware has already refused a body over the limit, and read a form itself
        // (`MultipartFormReader`), passing its file part on as `application/octet-stream`:
        // the runtime's multipart parser is never given a body. The format is read from the
        // bytes, whatever type the client sent them as.
        let bytes: Data
        switch input.body {
        case .jpeg(let body), .png(let body), .imageHeic(let body), .imageHeif(let body), .imageWebp(let body),
            .imageTiff(let body), .imageGif(let body), .binary(let body):
            bytes = try await Data(collecting: body, upTo: .max)
        case .multipartForm:
            throw Problem(.internalServerError, "The form was not read before the upload; it is logged.")
        }
        guard !bytes.isEmpty else { throw Problem(.unprocessableContent, "The body is empty; send the image bytes.") }
        let stored = try await service.storePhoto(bytes, owner: try owner)
        let photo = Components.Schemas.Photo(
            id: stored.digest, width: stored.width, height: stored.height, format: stored.format)
        return stored.isNew ? .created(.init(body: .json(photo))) : .ok(.init(body: .json(photo)))
    }

    func preview(_ input: Operations.Preview.Input) async throws -> Operations.Preview.Output {
        guard case .json(let spec) = input.body else {
            throw Problem(.unsupportedMediaType, "Send a card spec as JSON.")
        }
        let side: CardRenderer.PreviewSide = input.query.side == .back ? .back : .front
        let jpeg = try await service.preview(try Self.json(spec), side: side, owner: try owner)
        return .ok(.init(body: .jpeg(HTTPBody(jpeg))))
    }

    func getPhoto(_ input: Operations.GetPhoto.Input) async throws -> Operations.GetPhoto.Output {
        // Another key's photo is not found, as one that does not exist.
        guard let photo = try await service.book.photo(owner: try owner, digest: input.path.id) else {
            throw Problem(.notFound, "There is no photo \(input.path.id) for this API key.")
        }
        if let width = input.query.width {
            guard (16...2048).contains(width) else {
                throw Problem(.badRequest, "width must be a whole number from 16 to 2048; received \(width).")
            }
            let jpeg = try await service.reducedPhoto(input.path.id, width: width, owner: try owner)
            return .ok(.init(body: .jpeg(HTTPBody(jpeg))))
        }
        return .ok(
            .init(
                body: .json(
                    .init(id: input.path.id, width: photo.width, height: photo.height, format: photo.format))))
    }

    func firstPlacement(_ input: Operations.FirstPlacement.Input) async throws -> Operations.FirstPlacement.Output {
        guard case .json(let spec) = input.body else {
            throw Problem(.unsupportedMediaType, "Send a card spec as JSON.")
        }
        let placed = try await service.firstPlacement(try Self.json(spec), owner: try owner)
        guard case .transform(let scale, let rotation, let x, let y) = placed.placement else {
            preconditionFailure("FirstPlacement is always a transform")
        }
        let (card, window) = (placed.card, placed.window)
        let answer = Components.Schemas.Placement(
            transform: .init(scale: scale, rotation: rotation, offset: .init(x: x, y: y)), reason: placed.reason,
            faces: placed.faces.map { .init(x: $0.x, y: $0.y, width: $0.width, height: $0.height) },
            card: .init(width: card.width, height: card.height),
            window: .init(
                x: Double(window.x) / Double(card.width), y: Double(window.y) / Double(card.height),
                width: Double(window.width) / Double(card.width), height: Double(window.height) / Double(card.height)))
        return .ok(.init(body: .json(answer)))
    }

    func listFrames(_ input: Operations.ListFrames.Input) async throws -> Operations.ListFrames.Output {
        _ = try owner
        let frames = (service.configuration.catalogue?.frames ?? []).map { frame in
            let trim = CardFormat(size: frame.size).trimPixels(frame.orientation)
            let (width, height) = (Double(trim.width), Double(trim.height))
            return Components.Schemas.Frame(
                id: frame.id, theme: frame.theme, title: frame.title,
                orientation: frame.orientation == .portrait ? .portrait : .landscape,
                window: .init(
                    x: Double(frame.window.x) / width, y: Double(frame.window.y) / height,
                    width: Double(frame.window.width) / width, height: Double(frame.window.height) / height),
                thumbnail: "\(PostcardRoutes.path)/frames/\(frame.id)/thumbnail")
        }
        return .ok(.init(body: .json(.init(frames: frames))))
    }

    func frameThumbnail(_ input: Operations.FrameThumbnail.Input) async throws -> Operations.FrameThumbnail.Output {
        _ = try owner
        let id = "\(input.path.theme)/\(input.path.name)"
        let width = input.query.width ?? 240
        let largest = PostcardService.frameThumbnailWidth
        guard (40...largest).contains(width) else {
            throw Problem(.badRequest, "width must be from 40 to \(largest); received \(width).")
        }
        guard let png = try await service.frameThumbnail(id, width: width) else {
            throw Problem(.notFound, "There is no frame \(id) in the catalogue (GET /v1/frames lists them).")
        }
        return .ok(.init(body: .png(HTTPBody(png))))
    }

    func createCards(_ input: Operations.CreateCards.Input) async throws -> Operations.CreateCards.Output {
        guard case .json(let body) = input.body else { throw Problem(.unsupportedMediaType, "Send the order as JSON.") }
        let specJSON = try Self.json(body.spec)
        let order = PostcardService.Order(
            spec: specJSON, cardSpecs: try Self.perRecipient(specJSON), press: body.press ?? PostcardService.rgbJPEG,
            bodyDigest: ContentDigest.of(try Self.json(body)))
        let key = input.headers.idempotencyKey
        let placed = try await service.place(order, idempotencyKey: key, owner: try owner) { cards in
            let created = Components.Schemas.CreatedCards(
                cards: cards.map { CreatedCardShape(id: $0.id, status: "queued", recipient: $0.recipient) })
            return String(decoding: try Self.json(created), as: UTF8.self)
        }
        let answer = try JSONDecoder().decode(Components.Schemas.CreatedCards.self, from: Data(placed.answer.utf8))
        return .accepted(.init(body: .json(answer)))
    }

    func listCards(_ input: Operations.ListCards.Input) async throws -> Operations.ListCards.Output {
        let limit = input.query.limit ?? 20
        guard (1...100).contains(limit) else {
            throw Problem(.badRequest, "limit must be from 1 to 100; received \(limit).")
        }
        var after: (Int, String)?
        if let cursor = input.query.after {
            let parts = cursor.split(separator: ".", maxSplits: 1)
            guard parts.count == 2, let created = Int(parts[0]) else {
                throw Problem(.badRequest, "after must be the next cursor of a previous page; received \(cursor).")
            }
            after = (created, String(parts[1]))
        }
        let status = input.query.status.flatMap { CardRecord.Status(rawValue: $0.rawValue) }
        let page = try await service.book.cards(owner: try owner, status: status, limit: limit, after: after)
        return .ok(
            .init(
                body: .json(
                    CardListShape(cards: page.cards.map(card), next: page.next.map { "\($0.created).\($0.id)" }))))
    }

    func getCard(_ input: Operations.GetCard.Input) async throws -> Operations.GetCard.Output {
        let id = input.path.id
        guard let card = try await service.book.card(owner: try owner, id: id) else {
            throw Problem.notFound("The card \(id)")
        }
        return .ok(.init(body: .json(self.card(card))))
    }

    func cancelCard(_ input: Operations.CancelCard.Input) async throws -> Operations.CancelCard.Output {
        let id = input.path.id
        switch try await service.book.cancel(owner: try owner, id: id) {
        case .cancelled(let card, let changed):
            if changed {
                service.logger.info("card \(id): cancelled")
                service.metrics.transition(to: "cancelled")
            }
            return .ok(.init(body: .json(self.card(card))))
        case .notFound: throw Problem.notFound("The card \(id)")
        case .printed(let card):
            throw Problem(
                .conflict, "The card \(id) is in the print run \(card.printRun ?? "") and cannot be cancelled.")
        }
    }

    func getCardFile(_ input: Operations.GetCardFile.Input) async throws -> Operations.GetCardFile.Output {
        let file: PostcardService.CardFile =
            switch input.path.file {
            case .sample: .sample
            case .small: .small
            case .print: .print
            }
        let (bytes, mediaType) = try await service.file(file, card: input.path.id, owner: try owner)
        let body = HTTPBody(bytes)
        switch mediaType {
        case "image/png": return .ok(.init(body: .png(body)))
        case "application/pdf": return .ok(.init(body: .pdf(body)))
        default: return .ok(.init(body: .jpeg(body)))
        }
    }

    func createPrintRun(_ input: Operations.CreatePrintRun.Input) async throws -> Operations.CreatePrintRun.Output {
        guard case .json(let body) = input.body else { throw Problem(.unsupportedMediaType, "Send the run as JSON.") }
        let run = try await service.printRun(press: body.press, sheet: body.sheet, owner: try owner)
        return .created(.init(body: .json(Self.run(run))))
    }

    func getPrintRun(_ input: Operations.GetPrintRun.Input) async throws -> Operations.GetPrintRun.Output {
        let id = input.path.id
        guard let run = try await service.book.run(owner: try owner, id: id) else {
            throw Problem.notFound("The print run \(id)")
        }
        return .ok(.init(body: .json(Self.run(run))))
    }

    func getPrintRunSheet(_ input: Operations.GetPrintRunSheet.Input) async throws
        -> Operations.GetPrintRunSheet.Output
    {
        let pdf = try await service.sheet(input.path.sheet, run: input.path.id, owner: try owner)
        return .ok(.init(body: .pdf(HTTPBody(pdf))))
    }

    func getPrintRunManifestCSV(_ input: Operations.GetPrintRunManifestCSV.Input) async throws
        -> Operations.GetPrintRunManifestCSV.Output
    {
        let csv = try await service.manifest(run: input.path.id, format: "csv", owner: try owner)
        return .ok(.init(body: .csv(HTTPBody(csv))))
    }

    func getPrintRunManifestJSON(_ input: Operations.GetPrintRunManifestJSON.Input) async throws
        -> Operations.GetPrintRunManifestJSON.Output
    {
        let json = try await service.manifest(run: input.path.id, format: "json", owner: try owner)
        guard let manifest = try? JSONDecoder().decode(DepositManifestShape.self, from: json) else {
            throw Problem(.serviceUnavailable, "The manifest of \(input.path.id) cannot be read now; retry later.")
        }
        return .ok(.init(body: .json(manifest)))
    }

    // MARK: Shapes

    /// The card as the API shows it: its mail class and postal warnings as decided when it was
    /// ordered (from its spec and the size its press prints, for a card ordered before cards
    /// kept them).
    func card(_ card: CardRecord) -> CardShape {
        var shown = self.card(PublicCard(card))
        if card.mailClass == nil {
            // Ordered before cards kept their mail class and warnings: read from the spec.
            (shown.mailClass, shown.warnings) = service.postal(spec: card.spec, press: card.press)
        }
        return shown
    }

    /// A card's public part as the API (and its events) show it.
    func card(_ card: PublicCard) -> CardShape {
        let link = { (file: String) in
            card.status.isRendered ? "\(PostcardRoutes.path)/cards/\(card.id)/files/\(file)" : nil
        }
        var times = ["queued": ServiceClock.rfc3339(card.created)]
        for (status, time) in card.times { times[status.rawValue] = ServiceClock.rfc3339(time) }
        return CardShape(
            id: card.id, status: card.status.rawValue, times: times, press: card.press, recipient: card.recipient,
            verdict: card.verdict, error: card.error,
            files: CardFilesShape(sample: link("sample"), small: link("small"), print: link("print")),
            mailClass: card.mailClass ?? MailClass.postcard.rawValue, warnings: card.warnings ?? [])
    }

    static func run(_ run: PrintRunRecord) -> PrintRunShape {
        PrintRunShape(
            id: run.id, press: run.press, sheet: run.sheet, cards: run.cards,
            sheets: run.sheets.indices.map { "\(PostcardRoutes.path)/print-runs/\(run.id)/sheets/\($0 + 1)" },
            manifest: run.manifest.map { _ in
                Components.Schemas.ManifestFiles(
                    csv: "\(PostcardRoutes.path)/print-runs/\(run.id)/manifest.csv",
                    json: "\(PostcardRoutes.path)/print-runs/\(run.id)/manifest.json")
            },
            mailed: run.mailed.map(ServiceClock.rfc3339))
    }

    /// `value` as canonical JSON (keys sorted): an order's digest, a spec for the renderer.
    static func json(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// The spec of each card of an order: one per recipient, each with that recipient alone
    /// (the spec whole when it has none).
    static func perRecipient(_ spec: Data) throws -> [(json: String, recipient: Int?)] {
        guard case .object(var object) = try JSONDecoder().decode(JSONValue.self, from: spec) else {
            throw Problem(.unprocessableContent, "The spec must be a JSON object.")
        }
        guard case .array(let recipients) = object["recipients"], !recipients.isEmpty else {
            return [(String(decoding: spec, as: UTF8.self), nil)]
        }
        return try recipients.enumerated().map { index, recipient in
            object["recipients"] = .array([recipient])
            return (String(decoding: try json(JSONValue.object(object)), as: UTF8.self), index)
        }
    }
}
