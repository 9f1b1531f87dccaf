import Glibc
import ImageCore
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
    /// upright photo decoded at `scale` of its size (1 unless shrunk on load).
    struct Decoded {
        let image: VImage
        let left: Int
        let top: Int
        /// Decoded pixels per upright photo pixel, across and down.
        let scale: (x: Double, y: Double)
    }

    /// The pixels the window needs, in memory (nil: the window shows none of the photo).
    /// Enlarging, only the box of the photo the window shows (and the interpolation's reach)
    /// is kept; reducing, the photo shrunk on load (already no larger than the card needs).
    /// - Parameter strict: any damage is an error (else what decodes is used).
    /// - Throws: `ImageInputError`, and `VipsError` for damaged data.
    func decode(_ data: ImageData, strict: Bool) throws -> Decoded? {
        let photo = plan.layout.photo
        let box: PixelBox
        switch plan.source {
        case .background:
            return nil
        case .enlargedCrop(let x, let y, let width, let height):
            box = PixelBox(left: x, top: y, right: x + width, bottom: y + height)
        case .region(let region, _, _, _, _), .rotated(let region, _, _, _, _):
            let scaled = plan.scaledPhoto
            if plan.layout.photoScale < 1 {
                let decoded = try data.decode(
                    policy: policy, strict: strict, atLeast: scaled.width, height: scaled.height)
                let image = try decoded.opaqueSRGB(background: plan.background).inMemory()
                return Decoded(
                    image: image, left: 0, top: 0,
                    scale: (Double(image.width) / Double(photo.width), Double(image.height) / Double(photo.height)))
            }
            // The region in the upright photo's pixels, widened by the bicubic's reach (2).
            let (fx, fy) = (Double(photo.width) / Double(scaled.width), Double(photo.height) / Double(scaled.height))
            box = PixelBox.enclosing(
                [
                    (Double(region.left) * fx, Double(region.top) * fy),
                    (Double(region.right) * fx, Double(region.bottom) * fy),
                ], margin: 3
            ).intersection(PixelBox(left: 0, top: 0, right: photo.width, bottom: photo.height))
        }
        let image = try data.decode(policy: policy, strict: strict)
            .extractArea(left: box.left, top: box.top, width: box.width, height: box.height)
            .opaqueSRGB(background: plan.background).inMemory()
        return Decoded(image: image, left: box.left, top: box.top, scale: (1, 1))
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
            var region = try scaled(decoded, box: box)
            if size.width != box.width || size.height != box.height {
                region = try fitted(region, width: size.width, height: size.height)
            }
            region = try region.rotated(degrees: Double(quarters) * 90, background: plan.background)
            guard x != 0 || y != 0 || region.width != width || region.height != height else { return region }
            return try region.embedded(x: x, y: y, width: width, height: height, background: plan.background)
        case .rotated(let box, let rotation, let centreX, let centreY, let visible):
            // Window = turn x (scaled photo - its centre) + centre; with pixel centres at whole
            // coordinates (libvips's affine), the box's pixel i is at box.left + i + 1/2.
            let region = try scaled(decoded, box: box)
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
    /// reduced from the photo shrunk on load, or enlarged from the decoded box alone by a
    /// bicubic whose pixel centres fall where the whole photo's enlargement puts them.
    private func scaled(_ decoded: Decoded, box: PixelBox) throws -> VImage {
        let scaledPhoto = plan.scaledPhoto
        let photo = plan.layout.photo
        if plan.layout.photoScale < 1 {
            return try fitted(decoded.image, width: scaledPhoto.width, height: scaledPhoto.height)
                .extractArea(left: box.left, top: box.top, width: box.width, height: box.height)
        }
        // Scaled pixel j (centre j + 1/2) is at (j + 1/2) / s in the photo, decoded pixel
        // (j + 1/2) / s - 1/2 - left: output = s x (input + 1/2 + left) - 1/2 (here j counts
        // from the box's left).
        let (sx, sy) = (
            Double(scaledPhoto.width) / Double(photo.width), Double(scaledPhoto.height) / Double(photo.height)
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
