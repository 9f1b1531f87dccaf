import VipsKit

/// The general executor's photo window: a card plan's `source` run by libvips (decoded
/// scaled on load, auto-oriented, made sRGB and opaque), at the window's size.
struct PhotoPlacer {
    let plan: CardPlan
    let policy: DecodePolicy

    /// The photo window: `plan.layout.window`'s size, the photo placed on the background.
    /// - Parameter strict: any damage is an error (else what decodes is used).
    func place(_ data: ImageData, strict: Bool) throws -> VImage {
        let (width, height) = (plan.layout.window.width, plan.layout.window.height)
        switch plan.source {
        case .box(let left, let top, let right, let bottom):
            let region = try scaledPhoto(data, strict: strict)
                .extractArea(left: left, top: top, width: right - left, height: bottom - top)
            return try fitted(region, width: width, height: height)
        case .enlargedCrop(let x, let y, let cropWidth, let cropHeight):
            let full = try data.decode(policy: policy, strict: strict).opaqueSRGB(background: plan.background)
            return try fitted(
                full.extractArea(left: x, top: y, width: cropWidth, height: cropHeight), width: width, height: height)
        case .turned(let rotation, _, _):
            var photo = try scaledPhoto(data, strict: strict)
            if rotation.truncatingRemainder(dividingBy: 360) != 0 {
                photo = try photo.rotated(degrees: rotation, background: plan.background)
            }
            let origin = plan.origin(of: Size(width: photo.width, height: photo.height))
            return try photo.embedded(
                x: origin.x, y: origin.y, width: width, height: height, background: plan.background)
        }
    }

    /// `region` resized to exactly `width` x `height`.
    private func fitted(_ region: VImage, width: Int, height: Int) throws -> VImage {
        try region.resized(
            scale: Double(width) / Double(region.width), verticalScale: Double(height) / Double(region.height)
        ).exactly(width: width, height: height)
    }

    /// The whole upright photo at `plan.scaledPhoto`: shrunk on load when reducing.
    private func scaledPhoto(_ data: ImageData, strict: Bool) throws -> VImage {
        let size = plan.scaledPhoto
        let decoded: VImage
        if plan.layout.photoScale < 1 {
            decoded = try data.decode(policy: policy, strict: strict, atLeast: size.width, height: size.height)
        } else {
            decoded = try data.decode(policy: policy, strict: strict)
        }
        let opaque = try decoded.opaqueSRGB(background: plan.background)
        guard opaque.width != size.width || opaque.height != size.height else { return opaque }
        return try fitted(opaque, width: size.width, height: size.height)
    }
}
