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
    private func check(_ geometry: ThumbnailGeometry, header: ImageHeader) throws(ThumbnailError) {
        let whole = geometry.wholeSize(sourceWidth: header.uprightWidth, sourceHeight: header.uprightHeight)
        for (width, height) in [whole, geometry.canvas] where width * height > policy.maxPixels {
            throw .boxTooLarge(
                width: geometry.canvas.width, height: geometry.canvas.height,
                reason: "it needs a \(width)x\(height) image, over the limit of \(policy.maxPixels) pixels")
        }
    }

    /// The photo decoded upright at 1/`shrink`, from `decodedPhotos` when kept there.
    package func decode(_ source: FastJPEGSource, shrink: Int, digest: String?) throws -> (MemoryImage, String?) {
        let memo = digest.flatMap { digest in decodedPhotos.map { (digest, $0) } }
        if let (digest, photos) = memo, let kept = photos.decode(digest: digest, shrink: shrink) {
            return (kept.image, kept.warning)
        }
        if let (_, photos) = memo {
            let size = source.uprightSize(shrink: shrink)
            photos.makeRoom(for: size.width * size.height * 3)
        }
        let (image, _, warning) = try source.decodeUpright(shrink: shrink, policy: policy)
        if let (digest, photos) = memo {
            photos.keep(DecodedPhotos.Decode(image: image, warning: warning), digest: digest, shrink: shrink)
        }
        return (image, warning)
    }

    /// The plan's geometry, with the attention point found in the decode for `attention`.
    package func fastGeometry(
        _ plan: ThumbnailPlan, request: ThumbnailRequest, header: ImageHeader, decoded: MemoryImage
    )
        throws -> ThumbnailGeometry
    {
        guard plan.needsAttention else { return plan.geometry }
        let image = try VImage.fromEightBitPixels(
            decoded.pixels, width: decoded.width, height: decoded.height, bands: 3)
        let focus = try Self.attention(
            in: image, crop: plan.geometry.crop, sourceWidth: header.uprightWidth, sourceHeight: header.uprightHeight)
        return request.box.canonical.geometry(
            sourceWidth: header.uprightWidth, sourceHeight: header.uprightHeight, enlarge: request.enlarge,
            focus: focus)
    }

    /// Where libvips's attention measure centres a crop of `crop`'s size (in the photo's
    /// pixels) in `image`, the photo at some scale, in fractions of the photo.
    package static func attention(in image: VImage, crop: ThumbnailGeometry.Box, sourceWidth: Int, sourceHeight: Int)
        throws(VipsError) -> (x: Double, y: Double)
    {
        let (scaleX, scaleY) = (Double(image.width) / Double(sourceWidth), Double(image.height) / Double(sourceHeight))
        let width = min(image.width, max(1, Int((crop.width * scaleX).rounded())))
        let height = min(image.height, max(1, Int((crop.height * scaleY).rounded())))
        let centre = try image.attentionCentre(width: width, height: height)
        return (Double(centre.x) / Double(image.width), Double(centre.y) / Double(image.height))
    }

    /// The crop resampled from the fast path's decode: the whole decode resized exactly as
    /// the GD-style thumbnail always was, or the crop's box taken straight from it.
    package func fastPixels(_ upright: MemoryImage, geometry: ThumbnailGeometry, header: ImageHeader) -> MemoryImage {
        let size = geometry.size
        if upright.width == size.width && upright.height == size.height
            && geometry.isWhole(sourceWidth: header.uprightWidth, sourceHeight: header.uprightHeight)
        {
            return upright
        }
        return PixelKernels.resample(
            upright, box: Self.box(geometry, header: header, decoded: (upright.width, upright.height)),
            width: size.width, height: size.height)
    }

    /// The box of a decode of `decoded` size that `geometry` resamples: the whole decode, or
    /// the crop at the decode's scale.
    package static func box(_ geometry: ThumbnailGeometry, header: ImageHeader, decoded: (width: Int, height: Int)) -> (
        x: Double, y: Double, width: Double, height: Double
    ) {
        if geometry.isWhole(sourceWidth: header.uprightWidth, sourceHeight: header.uprightHeight) {
            return (0, 0, Double(decoded.width), Double(decoded.height))
        }
        let scaleX = Double(decoded.width) / Double(header.uprightWidth)
        let scaleY = Double(decoded.height) / Double(header.uprightHeight)
        let crop = geometry.crop
        return (crop.x * scaleX, crop.y * scaleY, crop.width * scaleX, crop.height * scaleY)
    }

    /// The plan's pixels streamed from the photo (`FastJPEGSource.streamedResample`), when
    /// no whole decode is worth holding: the photo is stored upright, its crop needs no
    /// attention measure, its decode is not kept in `decodedPhotos` and would not be (too
    /// large for them, or no digest), and is not already the thumbnail's size. A server's
    /// large widths of 12 MP photos then hold a few rows instead of a 9-36 MB decode.
    /// - Returns: nil when the whole decode is to be made (`decode`).
    package func streamedPixels(_ source: FastJPEGSource, plan: ThumbnailPlan, header: ImageHeader, digest: String?)
        throws
        -> (image: MemoryImage, warning: String?)?
    {
        guard source.streams, !plan.needsAttention else { return nil }
        let decoded = source.uprightSize(shrink: plan.dctShrink)
        let size = plan.geometry.size
        guard decoded.width != size.width || decoded.height != size.height else { return nil }
        if let digest, let decodedPhotos {
            if decodedPhotos.wouldKeep(bytes: decoded.width * decoded.height * 3)
                || decodedPhotos.contains(digest: digest, shrink: plan.dctShrink)
            {
                return nil
            }
        }
        return try source.streamedResample(
            shrink: plan.dctShrink, box: Self.box(plan.geometry, header: header, decoded: decoded), width: size.width,
            height: size.height, policy: policy)
    }

    /// The fast path's pixels padded to the canvas: in memory on a colour, or by libvips on
    /// transparency (an alpha band added) when no background is asked and the format has alpha.
    package func padded(_ pixels: MemoryImage, geometry: ThumbnailGeometry, box: ThumbnailBox, options: EncodeOptions)
        throws -> Data
    {
        if box.background != nil || !options.format.keepsAlpha {
            let canvas = MemoryImage(
                width: geometry.canvas.width, height: geometry.canvas.height, colour: box.background ?? [255, 255, 255]
            ).pasting(pixels, x: geometry.offset.x, y: geometry.offset.y)
            return try FastEncoder.encode(canvas, options)
                ?? VImage.fromEightBitPixels(canvas.pixels, width: canvas.width, height: canvas.height, bands: 3)
                .encoded(options)
        }
        return try VImage.fromEightBitPixels(pixels.pixels, width: pixels.width, height: pixels.height, bands: 3)
            .withAlpha()
            .embedded(
                x: geometry.offset.x, y: geometry.offset.y, width: geometry.canvas.width,
                height: geometry.canvas.height, background: [0, 0, 0, 0]
            )
            .encoded(options)
    }

    /// The general path: libvips's `thumbnail` to the whole photo's scaled size, in sRGB,
    /// cut to the crop and padded to the canvas, in memory.
    package func generalPixels(
        _ data: ImageData, header: ImageHeader, plan: ThumbnailPlan, request: ThumbnailRequest,
        options: EncodeOptions, strict: Bool
    ) throws -> VImage {
        let (sourceWidth, sourceHeight) = (header.uprightWidth, header.uprightHeight)
        var geometry = plan.geometry
        let whole = geometry.wholeSize(sourceWidth: sourceWidth, sourceHeight: sourceHeight)
        var image = try data.thumbnail(policy: policy, width: whole.width, height: whole.height, strict: strict)
            .normalisedToSRGB()
            .inMemory()
        if plan.needsAttention {
            let focus = try Self.attention(
                in: image, crop: geometry.crop, sourceWidth: sourceWidth, sourceHeight: sourceHeight)
            geometry = request.box.canonical.geometry(
                sourceWidth: sourceWidth, sourceHeight: sourceHeight, enlarge: request.enlarge, focus: focus)
        }
        if !geometry.isWhole(sourceWidth: sourceWidth, sourceHeight: sourceHeight) {
            let area = Self.area(geometry, whole: whole, sourceWidth: sourceWidth, sourceHeight: sourceHeight)
            image = try image.extractArea(left: area.left, top: area.top, width: area.width, height: area.height)
        }
        guard geometry.isPadded else { return image }
        let (padding, alpha) = Self.padding(box: request.box, options: options, imageHasAlpha: image.hasAlpha)
        if alpha { image = try image.withAlpha() }
        return try image.embedded(
            x: geometry.offset.x, y: geometry.offset.y, width: geometry.canvas.width, height: geometry.canvas.height,
            background: padding
        ).inMemory()
    }

    /// The crop in the pixels of the whole photo resampled to `whole`, inside it.
    package static func area(
        _ geometry: ThumbnailGeometry, whole: (width: Int, height: Int), sourceWidth: Int, sourceHeight: Int
    )
        -> (left: Int, top: Int, width: Int, height: Int)
    {
        let width = min(geometry.size.width, whole.width)
        let height = min(geometry.size.height, whole.height)
        let left = Int((geometry.crop.x * Double(whole.width) / Double(sourceWidth)).rounded())
        let top = Int((geometry.crop.y * Double(whole.height) / Double(sourceHeight)).rounded())
        return (min(max(0, left), whole.width - width), min(max(0, top), whole.height - height), width, height)
    }

    /// The padding's band values, and whether the image needs an alpha band for it: the
    /// asked background (opaque), else transparency where the format has alpha, else white.
    package static func padding(box: ThumbnailBox, options: EncodeOptions, imageHasAlpha: Bool) -> (
        [Double], alpha: Bool
    ) {
        if let colour = box.background {
            return (colour.map(Double.init) + (imageHasAlpha ? [255] : []), false)
        }
        if options.format.keepsAlpha { return ([0, 0, 0, 0], true) }
        return ([255, 255, 255] + (imageHasAlpha ? [255] : []), false)
    }

    /// An animation kept animated: its first `maxFrames` frames, each resized, cut and
    /// padded alike, with their delays and loop count (libvips's loaders and savers).
    private func animation(
        _ data: ImageData, header: ImageHeader, plan: ThumbnailPlan, frames: Int, request: ThumbnailRequest,
        options: EncodeOptions
    ) throws -> Thumbnail {
        let kept = min(frames, max(1, request.maxFrames))
        let (sourceWidth, sourceHeight) = (header.uprightWidth, header.uprightHeight)
        let (image, warning) = try renderHandlingDamage(data, policy: policy) { strict in
            var geometry = plan.geometry
            let whole = geometry.wholeSize(sourceWidth: sourceWidth, sourceHeight: sourceHeight)
            var image = try data.animationThumbnail(
                header: header, policy: policy, frames: kept, width: whole.width, height: whole.height, strict: strict
            ).inMemory()
            if plan.needsAttention {
                let first = try image.extractArea(left: 0, top: 0, width: whole.width, height: whole.height)
                let focus = try Self.attention(
                    in: first, crop: geometry.crop, sourceWidth: sourceWidth, sourceHeight: sourceHeight)
                geometry = request.box.canonical.geometry(
                    sourceWidth: sourceWidth, sourceHeight: sourceHeight, enlarge: request.enlarge, focus: focus)
            }
            guard !geometry.isWhole(sourceWidth: sourceWidth, sourceHeight: sourceHeight) || geometry.isPadded
            else { return image }
            let area = Self.area(geometry, whole: whole, sourceWidth: sourceWidth, sourceHeight: sourceHeight)
            var padding: [Double] = []
            if geometry.isPadded {
                let (values, alpha) = Self.padding(box: request.box, options: options, imageHasAlpha: image.hasAlpha)
                if alpha { image = try image.withAlpha() }
                padding = values
            }
            return try image.reframingPages(
                kept, pageHeight: image.pageHeight, box: area, x: geometry.offset.x, y: geometry.offset.y,
                canvas: geometry.canvas, background: padding
            ).inMemory()
        }
        var made = Thumbnail(
            data: try image.encoded(options), width: image.width, height: image.pageHeight, format: options.format,
            path: .general, warning: warning)
        made.frames = kept
        made.sourceFrames = frames
        return made
    }

    /// A placeholder of the thumbnail `request` describes: its crop at most
    /// `thumbHashSide` (ThumbHash) or `blurSide` (blur) pixels on the long side, from the
    /// fast path's smallest DCT scale or libvips's shrink-on-load.
    private func placeholder(
        _ kind: ThumbnailRequest.Placeholder, of data: ImageData, header: ImageHeader, request: ThumbnailRequest,
        digest: String?
    ) throws -> Thumbnail {
        let (sourceWidth, sourceHeight) = (header.uprightWidth, header.uprightHeight)
        let full = request.box.canonical.geometry(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, enlarge: request.enlarge)
        let side = kind == .thumbhash ? Self.thumbHashSide : Self.blurSide
        let geometry = full.reduced(toFit: side)
        let executor = Executor.choose(
            photo: data, header: header, engine: engine, colourOnly: true, keepsMetadata: false)
        var image: VImage
        var warning: String?
        var path = RenderPath.general
        if case .fast(let source) = executor {
            let whole = geometry.wholeSize(sourceWidth: sourceWidth, sourceHeight: sourceHeight)
            let shrink = source.shrink(atLeast: whole, headroom: 2)
            let (upright, decodeWarning) = try decode(source, shrink: shrink, digest: digest)
            let pixels = fastPixels(upright, geometry: geometry, header: header)
            image = try VImage.fromEightBitPixels(pixels.pixels, width: pixels.width, height: pixels.height, bands: 3)
            (warning, path) = (decodeWarning, .fast)
        } else {
            let cut = ThumbnailPlan(geometry: geometry)
            (image, warning) = try renderHandlingDamage(data, policy: policy) { strict in
                try generalPixels(
                    data, header: header, plan: cut, request: request, options: EncodeOptions(), strict: strict)
            }
        }
        let made: (data: Data, mimeType: String, width: Int, height: Int)
        switch kind {
        case .thumbhash:
            let bands = image.hasAlpha ? 4 : 3
            image = try (bands == 4 ? image.bands(0, count: 4) : image.bands(0, count: 3)).castToUChar()
            let hash = ThumbHash.encode(
                width: image.width, height: image.height, pixels: try image.eightBitPixels(), bands: bands)
            let json =
                #"{"thumbhash":"\#(Data(hash).base64EncodedString())","width":\#(full.canvas.width),"height":\#(full.canvas.height)}"#
            made = (Data(json.utf8), "application/json", full.canvas.width, full.canvas.height)
        case .blur:
            let options = EncodeOptions(format: .jpeg, quality: 50)
            let bytes = try image.flattened().blurred(sigma: 1).encoded(options)
            made = (bytes, options.format.mimeType, image.width, image.height)
        }
        var thumbnail = Thumbnail(
            data: made.data, width: made.width, height: made.height, format: kind == .blur ? .jpeg : .png, path: path,
            warning: warning)
        thumbnail.mimeType = made.mimeType
        return thumbnail
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
