import HTTPTypes
import OpenAPIRuntime

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension PostcardAPI {
    func scanCard(_ input: Operations.ScanCard.Input) async throws -> Operations.ScanCard.Output {
        // ServiceMiddleware has already refused a body over the limit; the format is read
        // from the bytes, whatever type the client sent them as.
        let bytes: Data
        switch input.body {
        case .jpeg(let body), .png(let body), .imageHeic(let body), .imageHeif(let body), .imageWebp(let body),
            .imageTiff(let body), .binary(let body):
            bytes = try await Data(collecting: body, upTo: .max)
        }
        guard !bytes.isEmpty else {
            throw Problem(.unprocessableContent, "The body is empty; send the photo of the card's back.")
        }
        let outcome: CardScans.Outcome = input.query.outcome == .delivered ? .delivered : .returned
        let card = try await service.scan(bytes, owner: try owner, outcome: outcome)
        return .ok(.init(body: .json(self.card(card))))
    }
}
