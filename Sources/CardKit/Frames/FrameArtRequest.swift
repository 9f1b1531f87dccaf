#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Everything that decides a rendered frame overlay's pixels: the art file's bytes and the
/// recipe (frame, size, bleed, how it is rasterised). A `FrameArtCache` keys on both.
public struct FrameArtRequest: Sendable {
    /// The part of the identity besides the art's bytes.
    public struct Recipe: Sendable, Hashable, Encodable {
        /// Bumped when the rasterising or splitting changes its pixels.
        public var kind = "frame-art-v1"
        /// The frame's id.
        public var frame: String
        /// The trimmed card's size and the bleed added around it.
        public var width: Int
        public var height: Int
        public var bleed: Int
    }

    /// The SVG art file's bytes.
    public let art: Data
    /// The recipe.
    public let recipe: Recipe
}
