import FileUtilities
import ImageCore
import VipsKit

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

    public init(
        data: Data, width: Int, height: Int, format: OutputFormat, path: RenderPath, warning: String? = nil
    ) {
        self.data = data
        self.width = width
        self.height = height
        self.format = format
        self.path = path
        self.warning = warning
    }

    /// Writes the bytes to `path` atomically.
    public func write(to path: String) throws {
        try AtomicFile.write(data, to: path)
    }
}
