/// Everything a thumbnail is asked for besides its encoding: the box, whether it may
/// enlarge, a placeholder instead of the image, and the frames an animation keeps.
public struct ThumbnailRequest: Sendable, Hashable, Codable {
    /// A stand-in a page shows while the thumbnail loads.
    public enum Placeholder: String, Sendable, Hashable, Codable, CaseIterable {
        /// A ThumbHash (about 25 bytes, decoded by a page's script), as JSON.
        case thumbhash
        /// A blurred JPEG at most `Thumbnailer.blurSide` pixels on its long side.
        case blur
    }

    /// The box.
    public var box: ThumbnailBox
    /// Whether the thumbnail may be larger than the photo.
    public var enlarge: Bool
    /// A placeholder instead of the thumbnail; nil for the thumbnail.
    public var placeholder: Placeholder?
    /// The most frames an animation keeps when the format holds one (the first ones).
    public var maxFrames: Int

    /// The frame cap when none is set (`--max-frames`).
    public static let defaultMaxFrames = 200

    public init(
        box: ThumbnailBox, enlarge: Bool = false, placeholder: Placeholder? = nil, maxFrames: Int = defaultMaxFrames
    ) {
        self.box = box
        self.enlarge = enlarge
        self.placeholder = placeholder
        self.maxFrames = maxFrames
    }

    /// The GD-style request: `width` pixels, the height by the aspect ratio.
    public init(width: Int, enlarge: Bool = false) {
        self.init(box: ThumbnailBox(width: width), enlarge: enlarge)
    }

    /// The request as short text, every field in a fixed order: a key for in-memory maps
    /// (`"\(request)"` would go through reflection, which cost a server's memory hit a
    /// quarter of its time; see benchmarks/RESULTS.md, issue 39). Equal requests give equal
    /// text, and different requests different text.
    public var key: String {
        var text =
            "w=\(box.width.map(String.init) ?? "-") h=\(box.height.map(String.init) ?? "-") fit=\(box.fit.rawValue)"
        switch box.gravity {
        case .focus(let x, let y): text += " g=focus(\(x),\(y))"
        case .attention: text += " g=attention"
        default: text += " g=\(box.gravity.anchor.map { "\($0.0),\($0.1)" } ?? "-")"
        }
        if let background = box.background { text += " bg=" + background.map(String.init).joined(separator: ",") }
        text += " dpr=\(box.dpr) enlarge=\(enlarge) frames=\(maxFrames)"
        if let placeholder { text += " placeholder=\(placeholder.rawValue)" }
        return text
    }
}
