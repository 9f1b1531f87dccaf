import ImageCore
import PhotoSources

/// Everything besides the frames that decides a card's bytes: all of it goes into the
/// cache key (`Encodable`), so a setting added here can never give stale cache hits.
public struct CardSettings: Sendable, Hashable, Encodable {
    /// Input limits and damage handling.
    public var policy: DecodePolicy
    /// Effective resolution at or above which print quality is `good` (150 dpi).
    public var qualityThreshold: Double
    /// The print files: a JPEG per side (quality 92, 4:4:4) by default, a TIFF, or a press's
    /// PDF/X postcards. A press sets the card's size, dpi and bleed.
    public var printFile: PrintFile
    /// The sample's longest side in pixels (about 800).
    public var sampleLongSide: Int
    /// The small image's width (200 px, GD-style, PNG).
    public var smallWidth: Int
    /// Which pixel path may render fronts.
    public var engine: RenderEngine
    /// The country the cards are posted in (ISO alpha-2, FR by default): the backs' country
    /// lines are in its language and left out for its own addresses.
    public var postedFrom: String

    public init(
        policy: DecodePolicy = .default, qualityThreshold: Double = 150,
        printFile: PrintFile = .jpeg,
        sampleLongSide: Int = 800, smallWidth: Int = 200, engine: RenderEngine = .auto, postedFrom: String = "FR"
    ) {
        self.policy = policy
        self.qualityThreshold = qualityThreshold
        self.printFile = printFile
        self.sampleLongSide = sampleLongSide
        self.smallWidth = smallWidth
        self.engine = engine
        self.postedFrom = postedFrom
    }
}
