import ImageCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One printed side: print file, sample and small image with their sizes.
public struct RenderedSide: Sendable {
    /// The print file: JPEG q92 4:4:4 or TIFF with its dpi set, or for a press the postcard's
    /// PDF/X; empty for a press card's first back, which is page 2 of the front's PDF.
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

    /// This side with `print` as its print file.
    public func withPrint(_ print: Data) -> RenderedSide {
        RenderedSide(
            print: print, sample: sample, small: small, printSize: printSize, sampleSize: sampleSize,
            smallSize: smallSize)
    }
}
