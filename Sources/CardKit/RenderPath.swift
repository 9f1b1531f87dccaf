/// Which pixel path rendered a card's front.
public enum RenderPath: String, Sendable, Codable, CaseIterable {
    /// libjpeg-turbo and the SIMD kernels, in memory: JPEG photos in YCbCr or grey without
    /// a colour profile (or an sRGB one), crop or quarter-turn placements.
    case fast
    /// libvips's lazy pipeline: every other photo and placement, and every card back.
    case general
}
