import Synchronization
import SystemPackage
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Frame art ready to lay over a card: colour and alpha, 8-bit, in memory.
public struct FrameOverlay: Sendable {
    /// The art's RGB.
    public let colour: VImage
    /// The art's alpha (0 transparent, 255 opaque).
    public let alpha: VImage
    /// The same as bytes for the fast path, made once with the overlay: RGB rows, and one
    /// alpha byte a pixel.
    let colourPixels: [UInt8]
    let alphaPixels: [UInt8]

    init(colour: VImage, alpha: VImage) throws {
        self.colour = colour
        self.alpha = alpha
        colourPixels = try colour.eightBitPixels()
        alphaPixels = try alpha.eightBitPixels()
    }
}
