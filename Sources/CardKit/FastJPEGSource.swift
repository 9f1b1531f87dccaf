import FastPath
import VipsKit

/// A JPEG photo the fast path can decode: 8-bit YCbCr or grey, with no colour profile or an
/// sRGB one (anything else needs libvips's colour management). Cards and thumbnails both
/// decode through it, so they take the fast path for the same photos.
struct FastJPEGSource {
    /// The encoded photo.
    let photo: ImageData
    /// Its JPEG header.
    let info: JPEGCodec.Info

    /// The photo as a fast-path source, or nil when it must go the libvips way. `header` is
    /// libvips's reading of the same bytes (its limits already checked).
    init?(_ photo: ImageData, header: ImageHeader) {
        guard header.format == .jpeg,
            let info = photo.withUnsafeBytes({ JPEGCodec.info(of: $0) }),
            info.isYCbCrOrGrey, info.components == 1 || info.components == 3,
            !info.hasICCProfile || info.iccProfileIsSRGB,
            info.width == header.width, info.height == header.height
        else { return nil }
        self.photo = photo
        self.info = info
    }

    /// The photo decoded and turned upright, at the smallest DCT scale (1, 1/2, 1/4, 1/8)
    /// whose upright size is still at least `headroom` times `atLeast` (full size when nil).
    /// A headroom of 2 leaves the final reduction at least a factor of 2, as libvips's
    /// `thumbnail` does: the scaled IDCT is a box-like filter, so less of it aliases less.
    /// - Parameter policy: `damage == .fail` makes any damage an error; otherwise what
    ///   decodes is returned with a warning naming the file.
    /// - Throws: `ImageInputError.damaged` naming the file, with libjpeg's reason.
    func decodeUpright(atLeast: (width: Int, height: Int)?, headroom: Int = 1, policy: DecodePolicy) throws
        -> (MemoryImage, warning: String?)
    {
        var shrink = 1
        if let atLeast {
            let swapped = info.orientation >= 5
            let (neededWidth, neededHeight) =
                swapped ? (atLeast.height, atLeast.width) : (atLeast.width, atLeast.height)
            while shrink < 8 && info.width / (shrink * 2) >= neededWidth * headroom
                && info.height / (shrink * 2) >= neededHeight * headroom
            {
                shrink *= 2
            }
        }
        let decoded: (image: MemoryImage, warning: String?)
        do {
            decoded = try photo.withUnsafeBytes { bytes throws(JPEGCodec.Failure) in
                try JPEGCodec.decode(bytes, scale: shrink, strict: policy.damage == .fail)
            }
        } catch {
            throw ImageInputError.damaged(file: photo.name, detail: error.message)
        }
        let warning = decoded.warning.map {
            "\(photo.name): damaged image data, rendered what decodes (\($0))."
        }
        return (PixelKernels.oriented(decoded.image, info.orientation), warning)
    }
}
