import ImageCore
import PhotoSources
import Thumbnails

/// Everything besides the input's content that decides a thumbnail's bytes: the request
/// and every output-affecting setting of the thumbnailer, as they are (`Encodable`, so a
/// field added to any of them is in the key without anyone copying it here).
///
/// `Thumbnailer.maxWidth` is left out on purpose: it only refuses widths, it never changes
/// the bytes of a thumbnail it makes.
public struct ThumbnailRecipe: Sendable, Hashable, Encodable {
    /// What kind of output, with its schema version.
    public var kind = "thumbnail-v1"
    /// The requested width.
    public var width: Int
    /// Whether a width above the source's is allowed.
    public var enlarge: Bool
    /// The encoding.
    public var options: EncodeOptions
    /// The thumbnailer's input policy (limits, damage handling).
    public var policy: DecodePolicy
    /// The pixel paths the thumbnailer may use (the two differ by resampling round-off).
    public var engine: RenderEngine
    /// The box, when it is more than a width (`ThumbnailBox.canonical`); nil for the
    /// GD-style width, so that every key made before boxes existed is unchanged.
    public var box: ThumbnailBox?
    /// The placeholder asked instead of the image; nil for the image.
    public var placeholder: ThumbnailRequest.Placeholder?
    /// The frame cap, for the formats that hold an animation (WebP, GIF), when it is not
    /// the default: it decides how many frames an animated photo's answer has. Nil for the
    /// other formats and for the default cap, so that a still photo's WebP keeps the key it
    /// had before animations were kept (a WebP of an animated GIF cached before them stays
    /// its first frame until the entry is evicted or the cache cleared: docs/thumbnails.md).
    public var maxFrames: Int?

    public init(width: Int, enlarge: Bool, options: EncodeOptions, policy: DecodePolicy, engine: RenderEngine) {
        self.width = width
        self.enlarge = enlarge
        self.options = options
        self.policy = policy
        self.engine = engine
    }

    /// The recipe of `request`: the width-only request's fields as they always were, the
    /// rest only where it is used.
    public init(request: ThumbnailRequest, options: EncodeOptions, policy: DecodePolicy, engine: RenderEngine) {
        let box = request.box.canonical
        self.init(width: box.width ?? 0, enlarge: request.enlarge, options: options, policy: policy, engine: engine)
        self.box = box.isWidthOnly ? nil : box
        placeholder = request.placeholder
        maxFrames =
            options.format.holdsAnimation && request.placeholder == nil
                && request.maxFrames != ThumbnailRequest.defaultMaxFrames ? request.maxFrames : nil
    }
}
