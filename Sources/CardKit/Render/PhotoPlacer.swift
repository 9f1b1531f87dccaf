import Glibc
import ImageCore
import PhotoSources
import VipsKit

/// The general executor's photo window: a card plan's `source` run by libvips, in two
/// stages kept apart so that each failure names its culprit. `decode` reads only the part of
/// the photo the window needs (at the decode scale), made sRGB and opaque, into memory: a
/// failure there is the photo's. `place` makes the window from it: a failure there is
/// cardrender's (`CardRenderFailure`), never blamed on a sound photo.
struct PhotoPlacer {
    let plan: CardPlan
    let policy: DecodePolicy

    /// What `decode` read: `image`, whose pixel (0, 0) is pixel (`left`, `top`) of the
    /// upright photo decoded at its load scale, `canvas` in size (the photo itself, or shrunk
    /// on load when reducing).
    struct Decoded {
        let image: VImage
        let left: Int
        let top: Int
        let canvas: Size
        /// The window's box of the scaled photo, made already (`scaled`) when the box at the
        /// load scale was too large to hold in memory (see `largestBox`).
        var scaledBox: VImage? = nil
    }

    /// The most bytes of a box at its load scale that `decode` holds in memory before a
    /// reduction: a larger box (a PNG or TIFF, which have no shrink-on-load, of tens of
    /// megapixels) is reduced as it is read, and only the reduced box is held. The pixels are
    /// the same (the same operations, in the same order); a 100 MP PNG's preview held 470 MiB
    /// before.
    static let largestBox = 32 << 20

    /// The pixels the window needs, in memory (nil: the window shows none of the photo): the
    /// box of the photo at its load scale that the window's box reads, widened by the
    /// resampler's reach, and no more. The photo is read sequentially (libvips decodes a
    /// random-access image whole on first use), unless it is stored turned (EXIF 2-8), which
    /// needs every row to stand upright, or is an HEIF (HEVC decodes whole).
    ///
    /// With `kept` (the service's previews, one photo at many placements), the whole photo is
    /// decoded once at that load scale, made opaque sRGB, and kept there under `digest`; the
    /// next preview cuts its box from it. The pixels are the same: the colour conversions are
    /// per pixel, and a JPEG decodes to the same values read whole or by rows.
    /// - Parameters:
    ///   - strict: any damage is an error (else what decodes is used).
    ///   - kept: where whole decodes are kept, and the photo's digest.
    /// - Throws: `ImageInputError`, and `VipsError` for damaged data.
    func decode(_ data: ImageData, strict: Bool, kept: (digest: String, photos: DecodedPhotos)? = nil) throws
        -> Decoded?
    {
        /// The photo decoded (shrunk on load to at least `size`, or whole), and whether it is
        /// opaque sRGB already.
        func load(atLeast size: Size?) throws -> (VImage, opaque: Bool) {
            func fresh(sequential: Bool) throws -> VImage {
                guard let size else { return try data.decode(policy: policy, strict: strict, sequential: sequential) }
                return try data.decode(
                    policy: policy, strict: strict, atLeast: size.width, height: size.height, sequential: sequential)
            }
            guard let kept else { return (try fresh(sequential: true), false) }
            // Every size that decodes at the same DCT scale shares one kept decode; a decode
            // too large to keep is read as a render reads it.
            let shrink = try size.flatMap { try data.loadShrink(policy: policy, atLeast: $0.width, height: $0.height) }
            let divisor = shrink ?? 1
            let bytes =
                (plan.layout.photo.width + divisor - 1) / divisor * ((plan.layout.photo.height + divisor - 1) / divisor)
                * 3
            guard kept.photos.wouldKeep(bytes: bytes) else { return (try fresh(sequential: true), false) }
            let name =
                "general \(kept.digest) \(strict ? "strict" : "lenient") 1/\(shrink ?? 1) "
                + plan.background.map { String(Int($0)) }.joined(separator: ",")
            if let hit = kept.photos.image(named: name) { return (hit, true) }
            kept.photos.makeRoom(for: bytes)
            let whole = try fresh(sequential: false).opaqueSRGB(background: plan.background).inMemory()
            kept.photos.keepImage(whole, named: name)
            return (whole, true)
        }
        let scaled = plan.scaledPhoto
        let decoded: VImage
        let opaque: Bool
        let box: PixelRect
        switch plan.source {
        case .background:
            return nil
        case .enlargedCrop(let x, let y, let width, let height):
            (decoded, opaque) = try load(atLeast: nil)
            box = PixelRect(left: x, top: y, right: x + width, bottom: y + height)
        case .region(let region, _, _, _, _), .rotated(let region, _, _, _, _):
            let margin: Double
            if plan.layout.photoScale < 1 {
                // Shrunk on load; then libvips's resize (a box shrink by whole factors, then
                // Lanczos3 for the rest) reads up to 4 of its steps beyond the box.
                (decoded, opaque) = try load(atLeast: scaled)
                let step = max(
                    Double(decoded.width) / Double(scaled.width), Double(decoded.height) / Double(scaled.height))
                margin = 8 * step.rounded(.up) + 8
            } else {
                // Enlarged by a bicubic, which reads 2 pixels beyond the box.
                (decoded, opaque) = try load(atLeast: nil)
                margin = 3
            }
            let (fx, fy) = (
                Double(decoded.width) / Double(scaled.width), Double(decoded.height) / Double(scaled.height)
            )
            box = PixelRect.enclosing(
                [
                    (Double(region.left) * fx, Double(region.top) * fy),
                    (Double(region.right) * fx, Double(region.bottom) * fy),
                ], margin: margin
            ).intersection(PixelRect(left: 0, top: 0, right: decoded.width, bottom: decoded.height))
        }
        let region = try decoded.extractArea(left: box.left, top: box.top, width: box.width, height: box.height)
        let canvas = Size(width: decoded.width, height: decoded.height)
        let lazy = opaque ? region : try region.opaqueSRGB(background: plan.background)
        if plan.layout.photoScale < 1, !opaque, box.width * box.height * 3 > Self.largestBox,
            let target = plan.windowBox
        {
            // Reduced as it is read (the decoder streams its rows): the reduction in memory only.
            var reading = Decoded(image: lazy, left: box.left, top: box.top, canvas: canvas)
            reading.scaledBox = try self.scaled(reading, box: target).inMemory()
            Vips.releaseFreeMemory()
            return reading
        }
        return Decoded(image: try lazy.inMemory(), left: box.left, top: box.top, canvas: canvas)
    }

    /// The photo window: `plan.layout.window`'s size, the photo placed on the background.
    /// - Throws: `VipsError`: cardrender's own failure (the caller names the stage).
    func place(_ decoded: Decoded?) throws -> VImage {
        let (width, height) = (plan.layout.window.width, plan.layout.window.height)
        guard let decoded else { return try VImage.solid(width: width, height: height, colour: plan.background) }
        switch plan.source {
        case .background:
            return try VImage.solid(width: width, height: height, colour: plan.background)
        case .enlargedCrop:
            return try fitted(decoded.image, width: width, height: height)
        case .region(let box, let size, let quarters, let x, let y):
            var region = try decoded.scaledBox ?? scaled(decoded, box: box)
            if size.width != box.width || size.height != box.height {
                region = try fitted(region, width: size.width, height: size.height)
            }
            region = try region.rotated(degrees: Double(quarters) * 90, background: plan.background)
            guard x != 0 || y != 0 || region.width != width || region.height != height else { return region }
            return try region.embedded(x: x, y: y, width: width, height: height, background: plan.background)
        case .rotated(let box, let rotation, let centreX, let centreY, let visible):
            // Window = turn x (scaled photo - its centre) + centre; with pixel centres at whole
            // coordinates (libvips's affine), the box's pixel i is at box.left + i + 1/2.
            // In memory before the turn: the affine reads each input tile several times, and
            // would run the resize again for each.
            let region = try decoded.scaledBox ?? scaled(decoded, box: box).inMemory()
            let radians = rotation * .pi / 180
            let (cosine, sine) = (cos(radians), sin(radians))
            let scaledPhoto = plan.scaledPhoto
            let turned = try region.transformed(
                matrix: (cosine, -sine, sine, cosine),
                inputOffset: (
                    Double(box.left) + 0.5 - Double(scaledPhoto.width) / 2,
                    Double(box.top) + 0.5 - Double(scaledPhoto.height) / 2
                ),
                outputOffset: (centreX - 0.5, centreY - 0.5),
                area: (visible.left, visible.top, visible.width, visible.height), interpolation: .bilinear,
                background: plan.background)
            return try turned.embedded(
                x: visible.left, y: visible.top, width: width, height: height, background: plan.background)
        }
    }

    /// `box` of the scaled photo (`plan.scaledPhoto`'s pixels) from what `decode` read:
    /// reduced by libvips's resize of the decoded photo (its box put back at its place on a
    /// canvas of the photo's size, so every pixel of `box` is computed as from the whole
    /// photo: only the box and its margin are read), or enlarged from the decoded box alone
    /// by a bicubic whose pixel centres fall where the whole photo's enlargement puts them.
    private func scaled(_ decoded: Decoded, box: PixelRect) throws -> VImage {
        let scaledPhoto = plan.scaledPhoto
        if plan.layout.photoScale < 1 {
            let canvas = try decoded.image.embedded(
                x: decoded.left, y: decoded.top, width: decoded.canvas.width, height: decoded.canvas.height,
                background: [0, 0, 0])
            return try fitted(canvas, width: scaledPhoto.width, height: scaledPhoto.height)
                .extractArea(left: box.left, top: box.top, width: box.width, height: box.height)
        }
        // Scaled pixel j (centre j + 1/2) is at (j + 1/2) / s in the photo, decoded pixel
        // (j + 1/2) / s - 1/2 - left: output = s x (input + 1/2 + left) - 1/2 (here j counts
        // from the box's left).
        let (sx, sy) = (
            Double(scaledPhoto.width) / Double(decoded.canvas.width),
            Double(scaledPhoto.height) / Double(decoded.canvas.height)
        )
        return try decoded.image.transformed(
            matrix: (sx, 0, 0, sy), inputOffset: (0.5 + Double(decoded.left), 0.5 + Double(decoded.top)),
            outputOffset: (-0.5 - Double(box.left), -0.5 - Double(box.top)),
            area: (0, 0, box.width, box.height), interpolation: .bicubic, background: nil)
    }

    /// `region` resized to exactly `width` x `height`.
    private func fitted(_ region: VImage, width: Int, height: Int) throws -> VImage {
        try region.resized(
            scale: Double(width) / Double(region.width), verticalScale: Double(height) / Double(region.height)
        ).exactly(width: width, height: height)
    }
}

extension CardPlan {
    /// The box of the scaled photo the window shows, for a plan that reads the photo through
    /// one (`region`, `rotated`).
    fileprivate var windowBox: PixelRect? {
        switch source {
        case .region(let box, _, _, _, _), .rotated(let box, _, _, _, _): box
        case .background, .enlargedCrop: nil
        }
    }
}
