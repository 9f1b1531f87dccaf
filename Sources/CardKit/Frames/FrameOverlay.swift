import VipsKit

/// A frame's art ready to lay over a card: 8-bit RGB colour and 8-bit alpha at the card's
/// full size (bleed included), in memory. Made once per frame and size (rasterised, or
/// loaded from a `FrameArtCache`) and shared by every card that uses it.
public struct FrameOverlay: Sendable {
    /// The card's size, bleed included.
    public let width: Int
    public let height: Int
    /// RGB, rows packed (`width` x `height` x 3 bytes).
    public let colourPixels: [UInt8]
    /// Alpha, rows packed (`width` x `height` bytes).
    public let alphaPixels: [UInt8]

    /// The overlay of these pixels; nil when the byte counts do not match the size (a
    /// stored copy from elsewhere is checked before use).
    public init?(width: Int, height: Int, colourPixels: [UInt8], alphaPixels: [UInt8]) {
        guard width > 0, height > 0, colourPixels.count == width * height * 3, alphaPixels.count == width * height
        else { return nil }
        self.width = width
        self.height = height
        self.colourPixels = colourPixels
        self.alphaPixels = alphaPixels
    }

    /// The overlay of rendered RGBA art split into colour and alpha.
    init(colour: VImage, alpha: VImage) throws {
        width = colour.width
        height = colour.height
        colourPixels = try colour.eightBitPixels()
        alphaPixels = try alpha.eightBitPixels()
    }

    /// The colour and alpha as libvips images, for the general path's blend.
    func images() throws -> (colour: VImage, alpha: VImage) {
        (
            try VImage.fromEightBitPixels(colourPixels, width: width, height: height, bands: 3),
            try VImage.fromEightBitPixels(alphaPixels, width: width, height: height, bands: 1)
        )
    }
}
