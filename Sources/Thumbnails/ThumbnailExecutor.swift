import FastPath
import ImageCore
import PhotoSources
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
package protocol ThumbnailExecutor {
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
/// from the decoder through the resampler (`Thumbnailer.streamedPixels`, the same bytes). A
/// whole decode that is not already kept is made within the thumbnailer's `decodeBudget`.
package struct FastThumbnailExecutor: ThumbnailExecutor {
    package let source: FastJPEGSource
    package let thumbnailer: Thumbnailer
    package var path: RenderPath { .fast }

    package func thumbnail(
        _ plan: ThumbnailPlan, of data: ImageData, header: ImageHeader, request: ThumbnailRequest,
        options: EncodeOptions, digest: String?
    ) throws -> Thumbnail {
        let geometry: ThumbnailGeometry
        let pixels: MemoryImage
        let warning: String?
        if let streamed = try thumbnailer.streamedPixels(source, plan: plan, header: header, digest: digest) {
            (geometry, pixels, warning) = (plan.geometry, streamed.image, streamed.warning)
        } else {
            // A whole decode not kept (a turned photo's, an attention crop's) is held while
            // it is resampled, with its upright copy when turned: within the budget.
            let size = source.uprightSize(shrink: plan.dctShrink)
            let kept = digest.map { thumbnailer.decodedPhotos?.contains(digest: $0, shrink: plan.dctShrink) ?? false }
            let held = kept == true ? 0 : size.width * size.height * 3 * (source.info.orientation == 1 ? 1 : 2)
            (geometry, pixels, warning) = try thumbnailer.withinBudget(bytes: held) {
                let (upright, warning) = try thumbnailer.decode(source, shrink: plan.dctShrink, digest: digest)
                let geometry = try thumbnailer.fastGeometry(plan, request: request, header: header, decoded: upright)
                return (geometry, thumbnailer.fastPixels(upright, geometry: geometry, header: header), warning)
            }
        }
        return Thumbnail(
            data: try thumbnailer.encoded(pixels, geometry: geometry, box: request.box, options: options),
            width: geometry.canvas.width, height: geometry.canvas.height, format: options.format, path: path,
            warning: warning)
    }
}

/// libheif and the SIMD kernels, for an HEIF whose embedded thumbnail is too small: the
/// crop's box resampled from the decode's YCbCr planes a row at a time
/// (`FastHEIFSource.streamedResample`), turned upright and converted to sRGB once small,
/// padded in memory. The decode (about 5 bytes a pixel at its peak: libheif holds the tiles'
/// pictures beside the planes it pastes them into) is held within the
/// thumbnailer's `decodeBudget`. A photo that decodes to another layout goes libvips's way.
package struct FastHEIFThumbnailExecutor: ThumbnailExecutor {
    package let source: FastHEIFSource
    package let thumbnailer: Thumbnailer
    package var path: RenderPath { .fast }

    package func thumbnail(
        _ plan: ThumbnailPlan, of data: ImageData, header: ImageHeader, request: ThumbnailRequest,
        options: EncodeOptions, digest: String?
    ) throws -> Thumbnail {
        let geometry = plan.geometry
        let size = geometry.size
        let box = Thumbnailer.box(
            geometry, header: header, decoded: (header.uprightWidth, header.uprightHeight))
        let pixels = try thumbnailer.withinBudget(bytes: plan.wholeDecodeBytes) {
            try source.streamedResample(box: box, width: size.width, height: size.height)
        }
        guard let pixels else {
            return try GeneralThumbnailExecutor(thumbnailer: thumbnailer).thumbnail(
                plan, of: data, header: header, request: request, options: options, digest: digest)
        }
        return Thumbnail(
            data: try thumbnailer.encoded(pixels, geometry: geometry, box: request.box, options: options),
            width: geometry.canvas.width, height: geometry.canvas.height, format: options.format, path: path,
            warning: nil)
    }
}

/// libvips's `thumbnail` to the whole photo's scaled size, then cut and padded.
package struct GeneralThumbnailExecutor: ThumbnailExecutor {
    package let thumbnailer: Thumbnailer
    package var path: RenderPath { .general }

    package func thumbnail(
        _ plan: ThumbnailPlan, of data: ImageData, header: ImageHeader, request: ThumbnailRequest,
        options: EncodeOptions, digest: String?
    ) throws -> Thumbnail {
        // The thumbnail's pixels are made in memory (decode errors: the input's), then
        // encoded (encoder errors: ours); see `renderHandlingDamage`.
        let (image, warning) = try thumbnailer.withinBudget(bytes: plan.wholeDecodeBytes) {
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
    /// The executor that runs thumbnail plans chosen for this one.
    package func thumbnailRunner(_ thumbnailer: Thumbnailer) -> any ThumbnailExecutor {
        switch self {
        case .fast(let source): FastThumbnailExecutor(source: source, thumbnailer: thumbnailer)
        case .fastHEIF(let source): FastHEIFThumbnailExecutor(source: source, thumbnailer: thumbnailer)
        case .general: GeneralThumbnailExecutor(thumbnailer: thumbnailer)
        }
    }
}
