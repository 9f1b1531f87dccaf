import CardKit
import PhotoSources
import RenderCache

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A finished card as the batch writes it and the service stores it: its sides (front
/// first, then one back per recipient) and what was measured. It becomes a cache entry only
/// when stored, and is read back from one on a hit; the entry's part names live here and
/// nowhere else.
public struct FinishedCard: Sendable {
    /// Front, then backs.
    public var sides: [RenderedSide]
    /// The measurements the report needs.
    public var record: Record

    /// What a card remembers besides its files.
    public struct Record: Codable, Sendable {
        public var sideSizes: [CardOutcome.Sizes]
        public var effectiveDPI: Double
        public var quality: PrintQuality
        public var frame: String?
        public var effect: String
        public var warning: String?
        public var path: RenderPath
        /// The automatic placement chosen (nil: the spec gave its own).
        public var placement: CardOutcome.Placement?
    }

    /// The finished form of a card the renderer made.
    public init(_ card: RenderedCard) {
        sides = [card.front] + card.versos
        record = Record(
            sideSizes: sides.map { CardOutcome.Sizes(print: $0.printSize, sample: $0.sampleSize, small: $0.smallSize) },
            effectiveDPI: (card.effectiveDPI * 10).rounded() / 10, quality: card.quality, frame: card.frame,
            effect: card.effect.name.rawValue, warning: card.warning, path: card.path,
            placement: card.firstPlacement.map(CardOutcome.Placement.init))
    }

    /// The card a cache entry holds, or nil when the entry is not a whole card.
    public init?(entry: CacheEntry) {
        guard let record = try? JSONDecoder().decode(Record.self, from: entry.metadata) else { return nil }
        var sides: [RenderedSide] = []
        for (index, sizes) in record.sideSizes.enumerated() {
            guard let print = entry.part("\(index).print"), let sample = entry.part("\(index).sample"),
                let small = entry.part("\(index).small")
            else { return nil }
            sides.append(
                RenderedSide(
                    print: print, sample: sample, small: small, printSize: sizes.print, sampleSize: sizes.sample,
                    smallSize: sizes.small))
        }
        guard !sides.isEmpty else { return nil }
        self.sides = sides
        self.record = record
    }

    /// The cache entry: parts `<side>.print`, `<side>.sample`, `<side>.small`; the record as metadata.
    public func entry() throws -> CacheEntry {
        var parts: [(name: String, data: Data)] = []
        for (index, side) in sides.enumerated() {
            parts += [("\(index).print", side.print), ("\(index).sample", side.sample), ("\(index).small", side.small)]
        }
        return CacheEntry(parts: parts, metadata: try JSONEncoder().encode(record))
    }
}
