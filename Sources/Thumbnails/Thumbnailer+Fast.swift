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
}
