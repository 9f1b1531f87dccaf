import PhotoSources

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One rendered card: its sides and what was measured.
public struct RenderedCard: Sendable {
    /// The photo side: the old records' `file_source`, `file_source_sample`, `file_source_small`.
    public let front: RenderedSide
    /// Landscape or portrait.
    public let orientation: Orientation
    /// The frame used, if any.
    public let frame: String?
    /// The effect applied.
    public let effect: ColourEffect
    /// Photo pixels per printed inch after placement.
    public let effectiveDPI: Double
    /// `good` when `effectiveDPI` reaches the threshold.
    public let quality: PrintQuality
    /// The backs: one per recipient (one with an empty address block when the card has a
    /// message but no recipient; none when it has neither).
    public let versos: [RenderedSide]
    /// Set when damaged data was rendered leniently.
    public let warning: String?
    /// Which pixel path rendered the front.
    public let path: RenderPath
    /// Wall time of the render.
    public let renderTime: Duration
    /// The placement chosen when the spec asked for `"transform": "auto"` (nil otherwise).
    public let firstPlacement: FirstPlacement?
}
