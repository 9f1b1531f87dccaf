import FastPath
import ImageCore
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Runs a thumbnail's plan (a still image; animations and placeholders are libvips's): the
/// thumbnails' counterpart of `CardExecutor`, with the same two conformers chosen in the same
/// place (`Executor.choose`, in `ThumbnailPlan`). The plan decides the geometry and the DCT
/// scale; an executor only runs it.
protocol ThumbnailExecutor {
    /// Which pixel path this is, as the thumbnail reports it.
    var path: RenderPath { get }

    /// The thumbnail the plan describes, encoded as `options` say.
    /// - Throws: `ImageInputError` for the photo's faults (damaged pixels), `VipsError` or
    ///   `ThumbnailError` for what the thumbnailer refuses.
    func thumbnail(
        _ plan: ThumbnailPlan, of data: ImageData, header: ImageHeader, request: ThumbnailRequest,
        options: EncodeOptions, digest: String?
    ) throws -> Thumbnail
}

/// libjpeg-turbo and the SIMD kernels: decoded at the plan's DCT scale (kept in the
/// thumbnailer's `decodedPhotos` under `digest`), the crop box resampled straight from that
/// decode, padded in memory; or, when no whole decode is worth holding, the rows streamed
/// from the decoder through the resampler (`Thumbnailer.streamedPixels`, the same bytes).
struct FastThumbnailExecutor: ThumbnailExecutor {
    let source: FastJPEGSource
    let thumbnailer: Thumbnailer
    var path: RenderPath { .fast }

    func thumbnail(
        _ plan: ThumbnailPlan, of data: ImageData, header: ImageHeader, request: ThumbnailRequest,
        options: EncodeOptions, digest: String?
    ) throws -> Thumbnail {
        let geometry: ThumbnailGeometry
        let pixels: MemoryImage
        let warning: String?
        if let streamed = try thumbnailer.streamedPixels(source, plan: plan, header: header, digest: digest) {
            (geometry, pixels, warning) = (plan.geometry, streamed.image, streamed.warning)
        } else {
            let upright: MemoryImage
            (upright, warning) = try thumbnailer.decode(source, shrink: plan.dctShrink, digest: digest)
            geometry = try thumbnailer.fastGeometry(plan, request: request, header: header, decoded: upright)
            pixels = thumbnailer.fastPixels(upright, geometry: geometry, header: header)
        }
        let bytes: Data
        if geometry.isPadded {
            bytes = try thumbnailer.padded(pixels, geometry: geometry, box: request.box, options: options)
        } else {
            bytes =
                try FastEncoder.encode(pixels, options)
                ?? VImage.fromEightBitPixels(pixels.pixels, width: pixels.width, height: pixels.height, bands: 3)
                .encoded(options)
        }
        return Thumbnail(
            data: bytes, width: geometry.canvas.width, height: geometry.canvas.height, format: options.format,
            path: path, warning: warning)
    }
}

/// libvips's `thumbnail` to the whole photo's scaled size, then cut and padded.
struct GeneralThumbnailExecutor: ThumbnailExecutor {
    let thumbnailer: Thumbnailer
    var path: RenderPath { .general }

    func thumbnail(
        _ plan: ThumbnailPlan, of data: ImageData, header: ImageHeader, request: ThumbnailRequest,
        options: EncodeOptions, digest: String?
    ) throws -> Thumbnail {
        // The thumbnail's pixels are made in memory (decode errors: the input's), then
        // encoded (encoder errors: ours); see `renderHandlingDamage`.
        let (image, warning) = try thumbnailer.withinBudget(header) {
            try renderHandlingDamage(data, policy: thumbnailer.policy) { strict in
                try thumbnailer.generalPixels(
                    data, header: header, plan: plan, request: request, options: options, strict: strict)
            }
        }
        return Thumbnail(
            data: try image.encoded(options), width: image.width, height: image.height, format: options.format,
            path: path, warning: warning)
    }
}

extension Executor {
    /// The executor that runs thumbnail plans chosen for this one (an HEIF source is never
    /// chosen for a thumbnail: `allowsHEIF` is off).
    func thumbnailRunner(_ thumbnailer: Thumbnailer) -> any ThumbnailExecutor {
        switch self {
        case .fast(let source): FastThumbnailExecutor(source: source, thumbnailer: thumbnailer)
        case .fastHEIF, .general: GeneralThumbnailExecutor(thumbnailer: thumbnailer)
        }
    }
}
