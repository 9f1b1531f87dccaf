import FastPath
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

/// GD-style thumbnails: a width in pixels, the height following the aspect ratio.
///
/// This is the old `get-img-podcast.php?...&width=N` service as a library call: PNG by
/// default, JPEG, WebP or AVIF on request, never enlarged unless asked.
///
/// Colour JPEGs without a colour profile (or with an sRGB one) take the fast path: decoded
/// by libjpeg-turbo at the DCT scale still above the wanted size, turned upright and
/// resampled by the SIMD kernels, then encoded by libpng or libjpeg-turbo (`FastEncoder`;
/// libvips for WebP, AVIF, TIFF, palette PNG and progressive JPEG). Every other input (grey or CMYK
/// JPEGs, other profiles, PNG, WebP, HEIC, TIFF...), and every thumbnail that keeps the
/// input's metadata, goes through libvips's `thumbnail`.
public struct Thumbnailer: Sendable {
    /// The largest width accepted (default 8192).
    public var maxWidth: Int
    /// Limits and damage handling for inputs.
    public var policy: DecodePolicy
    /// Which pixel path may make thumbnails.
    public var engine: RenderEngine
    /// Where fast-path decodes are kept for the next widths of the same photo (nil: none;
    /// used when the caller gives the photo's digest).
    public var decodedPhotos: DecodedPhotos?

    public init(
        maxWidth: Int = 8192, policy: DecodePolicy = .default, engine: RenderEngine = .auto,
        decodedPhotos: DecodedPhotos? = nil
    ) {
        self.maxWidth = maxWidth
        self.policy = policy
        self.engine = engine
        self.decodedPhotos = decodedPhotos
    }

    /// The output size for a source of `sourceWidth` x `sourceHeight` (upright) asked at `width`.
    ///
    /// Height = round(sourceHeight x width / sourceWidth), at least 1. Without `enlarge`,
    /// a width above the source's gives the source size.
    public static func outputSize(
        sourceWidth: Int, sourceHeight: Int, width: Int, enlarge: Bool
    ) -> (width: Int, height: Int) {
        let target = enlarge ? width : min(width, sourceWidth)
        let height = (2 * sourceHeight * target + sourceWidth) / (2 * sourceWidth)
        return (target, max(1, height))
    }

    /// Makes a thumbnail of encoded image bytes.
    /// - Parameters:
    ///   - data: the encoded input (its `name` appears in errors).
    ///   - width: wanted width in pixels, 1...`maxWidth`.
    ///   - enlarge: allow a width above the source width.
    ///   - options: output format and settings (PNG by default).
    ///   - digest: the input's content digest, when the caller knows it: a fast-path decode
    ///     is then looked up in, and kept in, `decodedPhotos`.
    /// - Throws: `ThumbnailError` for a bad width, `ImageInputError` for refused or damaged
    ///   input (`.damaged` when the pixels fail to decode; the header had been read).
    public func thumbnail(
        of data: ImageData, width: Int, enlarge: Bool = false, options: EncodeOptions = EncodeOptions(),
        digest: String? = nil
    ) throws -> Thumbnail {
        guard (1...maxWidth).contains(width) else {
            throw ThumbnailError.widthOutOfRange(received: width, maximum: maxWidth)
        }
        let header = try data.photoHeader(policy: policy)
        let plan = ThumbnailPlan(
            photo: data, header: header, width: width, enlarge: enlarge, options: options, engine: engine)
        let size = plan.size
        if case .fast(let source) = plan.executor {
            let memo = digest.flatMap { digest in decodedPhotos.map { (digest, $0) } }
            let decode: DecodedPhotos.Decode
            if let (digest, photos) = memo, let kept = photos.decode(digest: digest, shrink: plan.dctShrink) {
                decode = kept
            } else {
                let (image, _, warning) = try source.decodeUpright(shrink: plan.dctShrink, policy: policy)
                decode = DecodedPhotos.Decode(image: image, warning: warning)
                if let (digest, photos) = memo { photos.keep(decode, digest: digest, shrink: plan.dctShrink) }
            }
            let (upright, warning) = (decode.image, decode.warning)
            let pixels =
                upright.width == size.width && upright.height == size.height
                ? upright : PixelKernels.resize(upright, width: size.width, height: size.height)
            let bytes =
                try FastEncoder.encode(pixels, options)
                ?? VImage.fromEightBitPixels(pixels.pixels, width: size.width, height: size.height, bands: 3)
                .encoded(options)
            return Thumbnail(
                data: bytes, width: size.width, height: size.height, format: options.format, path: .fast,
                warning: warning)
        }
        // The thumbnail's pixels are made in memory (decode errors: the input's), then
        // encoded (encoder errors: ours); see `renderHandlingDamage`.
        let (pixels, warning) = try renderHandlingDamage(data, policy: policy) { strict in
            try data.thumbnail(policy: policy, width: size.width, height: size.height, strict: strict)
                .normalisedToSRGB()
                .inMemory()
        }
        let bytes = try pixels.encoded(options)
        return Thumbnail(
            data: bytes, width: size.width, height: size.height, format: options.format, path: .general,
            warning: warning)
    }

    /// Makes a thumbnail of a file, enforcing the byte limit before reading it.
    /// - Throws: as `thumbnail(of:width:enlarge:options:)`, plus `ImageInputError` for
    ///   unreadable, empty or over-size files.
    public func thumbnail(
        file path: String, width: Int, enlarge: Bool = false, options: EncodeOptions = EncodeOptions()
    ) throws -> Thumbnail {
        let data = try ImageData(contentsOfFile: path, maxBytes: policy.maxFileBytes)
        return try thumbnail(of: data, width: width, enlarge: enlarge, options: options)
    }
}
