import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One printed side: print file, sample and small image with their sizes.
public struct RenderedSide: Sendable {
    /// The print file (JPEG q92 4:4:4 or TIFF) with its dpi set.
    public let print: Data
    /// The preview, about 800 px on the long side (JPEG).
    public let sample: Data
    /// The small image, 200 px wide (PNG).
    public let small: Data
    /// Pixel sizes of the three.
    public let printSize: Size
    public let sampleSize: Size
    public let smallSize: Size

    public init(print: Data, sample: Data, small: Data, printSize: Size, sampleSize: Size, smallSize: Size) {
        self.print = print
        self.sample = sample
        self.small = small
        self.printSize = printSize
        self.sampleSize = sampleSize
        self.smallSize = smallSize
    }
}
