/// Which pixel path rendered a card's front or a thumbnail.
public enum RenderPath: String, Sendable, Codable, CaseIterable {
    /// libjpeg-turbo and the SIMD kernels, in memory: JPEG photos in YCbCr (or grey, for
    /// cards) without a colour profile or with an sRGB one; for cards, crop or quarter-turn
    /// placements.
    case fast
    /// libvips's lazy pipeline: every other photo and placement, and every card back.
    case general
}
