import FastPath
import ImageCore
import VipsKit

/// A JPEG photo the fast path can decode: 8-bit YCbCr or grey, with no colour profile, an
/// sRGB one, or (YCbCr) another RGB profile lcms2 reads, such as an iPhone's Display P3,
/// converted to sRGB as each row is decoded (CMYK and grey profiles need libvips's colour
/// management). Cards and thumbnails both decode through it, so they take the fast path for
/// the same photos.
package struct FastJPEGSource: FastPhotoSource {
    /// The encoded photo.
    package let photo: ImageData
    /// Its JPEG header.
    package let info: JPEGCodec.Info
    /// The conversion of its pixels to sRGB (nil: they are sRGB already), applied to rows
    /// as they are decoded.
    package let transform: ColourTransform?
    /// None: `decodeUpright` converts to sRGB itself.
    package var transformAfterResampling: ColourTransform? { nil }

    /// The photo as a fast-path source, or nil when it must go the libvips way. `header` is
    /// libvips's reading of the same bytes (its limits already checked).
    package init?(_ photo: ImageData, header: ImageHeader) {
        guard header.format == .jpeg,
            let info = photo.withUnsafeBytes({ JPEGCodec.info(of: $0) }), Self.canDecode(info),
            info.width == header.width, info.height == header.height
        else { return nil }
        if info.hasICCProfile && !info.iccProfileIsSRGB {
            // A profile lcms2 cannot use goes the libvips way, which says what is wrong with it.
            guard let profile = photo.withUnsafeBytes({ JPEGCodec.iccProfile(of: $0) }),
                let transform = try? ColourTransform.toSRGB(from: profile)
            else { return nil }
            self.transform = transform
        } else {
            transform = nil
        }
        self.photo = photo
        self.info = info
    }

    /// Whether the fast path may decode a JPEG with this header: 8-bit YCbCr or grey, with
    /// no profile or an sRGB one, or YCbCr with another RGB profile (converted by lcms2).
    package static func canDecode(_ info: JPEGCodec.Info) -> Bool {
        info.isYCbCrOrGrey && (info.components == 1 || info.components == 3)
            && (!info.hasICCProfile || info.iccProfileIsSRGB || (info.components == 3 && info.iccProfileIsRGB))
    }

    /// The smallest DCT scale (1, 2, 4, 8: decoding at 1/`shrink`) whose upright size is
    /// still at least `headroom` times `atLeast`. A headroom of 2 leaves the final reduction
    /// at least a factor of 2, as libvips's `thumbnail` does: the scaled IDCT is a box-like
    /// filter, so less of it aliases less.
    package func shrink(atLeast: (width: Int, height: Int), headroom: Int = 1) -> Int {
        let swapped = info.orientation >= 5
        let (neededWidth, neededHeight) = swapped ? (atLeast.height, atLeast.width) : (atLeast.width, atLeast.height)
        var shrink = 1
        while shrink < 8 && info.width / (shrink * 2) >= neededWidth * headroom
            && info.height / (shrink * 2) >= neededHeight * headroom
        {
            shrink *= 2
        }
        return shrink
    }

    /// The upright size of the photo decoded at 1/`shrink` (libjpeg rounds up).
    package func uprightSize(shrink: Int) -> (width: Int, height: Int) {
        ((info.uprightWidth + shrink - 1) / shrink, (info.uprightHeight + shrink - 1) / shrink)
    }

    /// The photo decoded at 1/`shrink` and turned upright: only the upright rows `rows` when
    /// given and the orientation keeps rows as rows (1 to 4; libjpeg skips the others'
    /// IDCT), else all of it.
    /// - Parameter policy: `damage == .fail` makes any damage an error, even in rows not
    ///   returned; otherwise what decodes is returned with a warning naming the file.
    /// - Returns: the pixels, the upright row their first row is, and the warning.
    /// - Throws: `ImageInputError.damaged` naming the file, with libjpeg's reason.
    package func decodeUpright(shrink: Int, rows: Range<Int>? = nil, policy: DecodePolicy) throws
        -> (image: MemoryImage, top: Int, warning: String?)
    {
        let height = uprightSize(shrink: shrink).height
        var stored: Range<Int>? = nil
        if let rows, info.orientation <= 4, rows.lowerBound >= 0, rows.upperBound <= height, !rows.isEmpty {
            // Orientations 3 and 4 turn the picture upside down: the rows come from the bottom.
            stored = info.orientation <= 2 ? rows : (height - rows.upperBound)..<(height - rows.lowerBound)
        }
        let decoded: (image: MemoryImage, warning: String?)
        do {
            decoded = try photo.withUnsafeBytes { bytes throws(JPEGCodec.Failure) in
                try JPEGCodec.decode(bytes, scale: shrink, rows: stored, strict: policy.damage == .fail)
            }
        } catch {
            throw ImageInputError.damaged(file: photo.name, detail: error.message)
        }
        var image = decoded.image
        transform?.apply(to: &image)
        let warning = decoded.warning.map {
            "\(photo.name): damaged image data, rendered what decodes (\($0))."
        }
        let top = stored == nil ? 0 : rows!.lowerBound
        return (PixelKernels.oriented(image, info.orientation), top, warning)
    }
}
