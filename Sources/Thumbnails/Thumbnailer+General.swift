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

extension Thumbnailer {
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
    func animation(
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
    func placeholder(
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
}
