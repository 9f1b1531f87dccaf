import FastPath
import ImageCore
import PhotoSources
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
    /// The bound that whole-picture decodes (an HEIC's) wait for, shared by a server's
    /// workers (nil: none; a batch's jobs each decode at once).
    public var decodeBudget: DecodeBudget?

    public init(
        maxWidth: Int = 8192, policy: DecodePolicy = .default, engine: RenderEngine = .auto,
        decodedPhotos: DecodedPhotos? = nil, decodeBudget: DecodeBudget? = nil
    ) {
        self.maxWidth = maxWidth
        self.policy = policy
        self.engine = engine
        self.decodedPhotos = decodedPhotos
        self.decodeBudget = decodeBudget
    }

    /// Runs `body`, a decode that holds `bytes` while it runs, within `decodeBudget` (0: a
    /// decode that holds no whole picture, run at once). libheif decodes every pixel: on
    /// libvips's path its planes, its RGB picture and libvips's copy, about 9 bytes a pixel;
    /// on the fast path its planes and the tiles' pictures beside them, about 5 (55 MB for a
    /// 12 MP iPhone photo, measured with libheif alone). JPEGs (DCT-scaled or streamed) and the formats
    /// libvips's `thumbnail` reads sequentially reserve nothing.
    package func withinBudget<T>(bytes: Int, _ body: () throws -> T) rethrows -> T {
        guard let decodeBudget, bytes > 0 else { return try body() }
        return try decodeBudget.reserving(bytes, body)
    }

    /// A fast executor's pixels encoded as `options` say, padded to the canvas when the
    /// geometry is (`padded`).
    package func encoded(_ pixels: MemoryImage, geometry: ThumbnailGeometry, box: ThumbnailBox, options: EncodeOptions)
        throws -> Data
    {
        if geometry.isPadded { return try padded(pixels, geometry: geometry, box: box, options: options) }
        return try FastEncoder.encode(pixels, options)
            ?? VImage.fromEightBitPixels(pixels.pixels, width: pixels.width, height: pixels.height, bands: 3)
            .encoded(options)
    }

    /// The output size for a source of `sourceWidth` x `sourceHeight` (upright) asked at `width`.
    ///
    /// Height = round(sourceHeight x width / sourceWidth), at least 1. Without `enlarge`,
    /// a width above the source's gives the source size.
    public static func outputSize(
        sourceWidth: Int, sourceHeight: Int, width: Int, enlarge: Bool
    ) -> (width: Int, height: Int) {
        ThumbnailBox.insideSize(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, width: width, height: nil, enlarge: enlarge)
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
        try thumbnail(
            of: data, request: ThumbnailRequest(width: width, enlarge: enlarge), options: options, digest: digest)
    }

    /// The long side of a `blur` placeholder, in pixels.
    public static let blurSide = 32
    /// The long side of the image a ThumbHash is computed from (the format's bound).
    public static let thumbHashSide = 100

    /// Makes the thumbnail `request` asks for: a box (`ThumbnailBox`), a placeholder, an
    /// animation kept animated when `options.format` holds one.
    ///
    /// Colour JPEGs take the fast path whatever the box: decoded at the DCT scale the crop
    /// needs, the crop box resampled straight from that decode (`PixelKernels.resample`
    /// takes a box with fractional edges), padded in memory. Everything else goes through
    /// libvips's `thumbnail` to the whole photo's scaled size, then cut and padded.
    /// - Parameters:
    ///   - data: the encoded input (its `name` appears in errors).
    ///   - request: the box, `enlarge`, the placeholder and the frame cap.
    ///   - options: output format and settings.
    ///   - digest: the input's content digest, when the caller knows it (`decodedPhotos`).
    /// - Throws: `ThumbnailError` for a box out of range, `ImageInputError` for refused or
    ///   damaged input (an animation's frames count towards the pixel limit).
    public func thumbnail(
        of data: ImageData, request: ThumbnailRequest, options: EncodeOptions = EncodeOptions(), digest: String? = nil
    ) throws -> Thumbnail {
        try check(request)
        let header = try data.photoHeader(policy: policy)
        let frames = header.pages
        if let placeholder = request.placeholder {
            return try self.placeholder(placeholder, of: data, header: header, request: request, digest: digest)
        }
        let plan = ThumbnailPlan(photo: data, header: header, request: request, options: options, engine: engine)
        try check(plan.geometry, header: header)
        if frames > 1 && options.format.holdsAnimation {
            return try animation(data, header: header, plan: plan, frames: frames, request: request, options: options)
        }
        var made = try plan.executor.thumbnailRunner(self).thumbnail(
            plan, of: data, header: header, request: request, options: options, digest: digest)
        made.sourceFrames = frames
        return made
    }

    /// Refuses a box whose sides, or sides times `dpr`, are out of range (`maxWidth`),
    /// before anything is read.
    public func check(_ request: ThumbnailRequest) throws(ThumbnailError) {
        let box = request.box
        for side in [box.width, box.height].compactMap({ $0 }) where !(1...maxWidth).contains(side) {
            throw .widthOutOfRange(received: side, maximum: maxWidth)
        }
        guard box.width != nil || box.height != nil else { throw .widthOutOfRange(received: 0, maximum: maxWidth) }
        let sides = box.pixelSides
        for side in [sides.width, sides.height].compactMap({ $0 }) where side > maxWidth {
            throw .boxTooLarge(
                width: sides.width ?? 0, height: sides.height ?? 0,
                reason: "each side times dpr must be at most \(maxWidth) pixels")
        }
    }

    /// Refuses a geometry whose images (the whole photo at the crop's scale, which an
    /// enlarging cover of a sliver would make huge; a padded canvas) pass the pixel limit.
    func check(_ geometry: ThumbnailGeometry, header: ImageHeader) throws(ThumbnailError) {
        let whole = geometry.wholeSize(sourceWidth: header.uprightWidth, sourceHeight: header.uprightHeight)
        for (width, height) in [whole, geometry.canvas] where width * height > policy.maxPixels {
            throw .boxTooLarge(
                width: geometry.canvas.width, height: geometry.canvas.height,
                reason: "it needs a \(width)x\(height) image, over the limit of \(policy.maxPixels) pixels")
        }
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
