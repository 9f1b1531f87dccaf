import VipsKit

/// Makes the photo window's pixels from the photo and its placement.
struct PhotoPlacer {
    let layout: CardLayout
    let background: [Double]
    /// The input limits, enforced by every decode.
    let policy: DecodePolicy

    /// The window image, exactly `layout.window` in size, opaque sRGB.
    func place(_ data: ImageData, header: ImageHeader, strict: Bool) throws -> VImage {
        let (width, height) = (layout.window.width, layout.window.height)
        switch layout.placement {
        case .crop(let x, let y, let cropWidth, let cropHeight):
            let scale = layout.photoScale
            let region: VImage
            if scale < 1 {
                // Shrink on load to about the final size, then cut the crop out of that.
                let base = try scaledPhoto(data, header: header, scale: scale, strict: strict)
                let fx = Double(base.width) / Double(layout.photo.width)
                let fy = Double(base.height) / Double(layout.photo.height)
                let left = Int((Double(x) * fx).rounded(.down))
                let top = Int((Double(y) * fy).rounded(.down))
                let right = min(base.width, Int((Double(x + cropWidth) * fx).rounded(.up)))
                let bottom = min(base.height, Int((Double(y + cropHeight) * fy).rounded(.up)))
                region = try base.extractArea(left: left, top: top, width: right - left, height: bottom - top)
            } else {
                let full = try data.decode(policy: policy, strict: strict).opaqueSRGB(background: background)
                region = try full.extractArea(left: x, top: y, width: cropWidth, height: cropHeight)
            }
            return try region.resized(
                scale: Double(width) / Double(region.width), verticalScale: Double(height) / Double(region.height)
            ).exactly(width: width, height: height)
        case .transform(_, let rotation, let offsetX, let offsetY):
            var photo = try scaledPhoto(data, header: header, scale: layout.photoScale, strict: strict)
            if rotation.truncatingRemainder(dividingBy: 360) != 0 {
                photo = try photo.rotated(degrees: rotation, background: background)
            }
            let left = (Double(width) / 2 + offsetX * Double(width) - Double(photo.width) / 2).rounded()
            let top = (Double(height) / 2 + offsetY * Double(height) - Double(photo.height) / 2).rounded()
            return try photo.embedded(x: Int(left), y: Int(top), width: width, height: height, background: background)
        }
    }

    /// The whole upright photo scaled by `scale`. Shrinking: JPEGs are decoded at the
    /// smallest DCT scale still above the target (as Pillow's `draft`; libvips's
    /// `thumbnail` would decode a 12 MP photo whole for a 1500 px window), then resized
    /// with Lanczos3. Enlarging: a Lanczos resize (libvips's `thumbnail` is slow at it).
    private func scaledPhoto(_ data: ImageData, header: ImageHeader, scale: Double, strict: Bool) throws -> VImage {
        if scale < 1 {
            let width = max(1, Int((Double(header.uprightWidth) * scale).rounded()))
            let height = max(1, Int((Double(header.uprightHeight) * scale).rounded()))
            let decoded = try data.decode(policy: policy, strict: strict, atLeast: width, height: height)
                .opaqueSRGB(background: background)
            return try decoded.resized(
                scale: Double(width) / Double(decoded.width), verticalScale: Double(height) / Double(decoded.height)
            ).exactly(width: width, height: height)
        }
        let full = try data.decode(policy: policy, strict: strict).opaqueSRGB(background: background)
        return scale == 1 ? full : try full.resized(scale: scale)
    }
}
