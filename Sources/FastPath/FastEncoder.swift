import ImageCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The fast path's encoders (libjpeg-turbo, libpng) for the outputs they write like libvips
/// would: PNG without a palette, JPEG baseline. Everything else (WebP, AVIF, TIFF, palette
/// PNG, progressive JPEG) is encoded by libvips.
public enum FastEncoder {
    /// `image` encoded as `options` ask, or nil when libvips must encode it.
    /// - Throws: `JPEGCodec.Failure` or `PNGCodec.Failure`: the encoder's own failure.
    public static func encode(_ image: MemoryImage, _ options: EncodeOptions) throws -> Data? {
        guard !options.keepMetadata else { return nil }
        switch options.format {
        case .png where !options.palette:
            return Data(try PNGCodec.encode(image, level: min(9, max(0, options.pngCompression)), filters: .paeth))
        case .jpeg where !options.progressive:
            return Data(
                try JPEGCodec.encode(
                    image, quality: min(100, max(1, options.quality)), fullChroma: fullChroma(options),
                    optimize: true))
        default:
            return nil
        }
    }

    /// Whether a JPEG at these options keeps full-resolution chroma (libvips's rule for
    /// `auto`: 4:4:4 from quality 90 up).
    public static func fullChroma(_ options: EncodeOptions) -> Bool {
        options.chroma == .full || (options.chroma == .auto && options.quality >= 90)
    }
}
