import FileUtilities
import ImageCore
import PhotoSources

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// An encoded thumbnail and what it is.
public struct Thumbnail: Sendable {
    /// The encoded bytes.
    public let data: Data
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The encoding.
    public let format: OutputFormat
    /// Which pixel path made it.
    public let path: RenderPath
    /// Set when damaged data was rendered leniently.
    public var warning: String?
    /// The frames it holds (an animation's; 1 for a still image).
    public var frames: Int = 1
    /// The frames its photo holds: more than `frames` when an animation was cut to its
    /// first frame (a format without animation) or to `--max-frames`.
    public var sourceFrames: Int = 1
    /// What it is, for `Content-Type`: the format's type, or JSON for a ThumbHash.
    public var mimeType: String

    public init(
        data: Data, width: Int, height: Int, format: OutputFormat, path: RenderPath, warning: String? = nil
    ) {
        self.data = data
        self.width = width
        self.height = height
        self.format = format
        self.path = path
        self.warning = warning
        self.mimeType = format.mimeType
    }

    /// Writes the bytes to `path` atomically.
    public func write(to path: String) throws {
        try AtomicFile.write(data, to: path)
    }
}
