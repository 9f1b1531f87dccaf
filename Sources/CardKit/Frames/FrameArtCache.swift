/// Where rendered frame art is kept between processes, so a node (or a fleet sharing one
/// store) rasterises each frame at each size once: rasterising an SVG frame (librsvg, cairo,
/// pixman) costs ~150 ms, more than the rest of a card. Attach one to a catalogue with
/// `FrameCatalogue.keepArt(in:)`; CardPipeline's `CachedFrameArt` keeps it in the content cache.
public protocol FrameArtCache: Sendable {
    /// The art stored for `request`, if any (checked by the catalogue against the size asked).
    func load(_ request: FrameArtRequest) -> FrameOverlay?
    /// Stores `art` for `request`; failures are the cache's to report, never the card's.
    func save(_ art: FrameOverlay, for request: FrameArtRequest)
}
