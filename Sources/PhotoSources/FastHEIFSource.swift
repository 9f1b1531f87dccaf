import FastPath
import ImageCore
import VipsKit

/// An HEIF photo (an iPhone's HEIC) the fast executor can decode: its primary image, 8-bit,
/// without alpha, with no profile or an RGB one lcms2 reads (an iPhone's Display P3,
/// converted to sRGB once decoded). libheif decodes it straight into the executor's buffer:
/// the same library, hence the same pixels, as libvips's `heifload`. A turn (`irot`, an
/// iPhone's portrait photo) is made by the fast path's orientation kernel, faster than
/// libheif's; a mirror or a crop by libheif. A thumbnail reads the decode's YCbCr planes a row
/// at a time instead (`streamedResample`), unless the file's embedded thumbnail covers it
/// (libvips's `thumbnail` starts from that).
package struct FastHEIFSource: FastPhotoSource {
    /// The encoded photo.
    package let photo: ImageData
    /// Its primary image's header.
    package let info: HEIFCodec.Info
    /// The conversion of its pixels to sRGB (nil: they are sRGB already), which the renderer
    /// applies once the picture is resampled: 58 ms on a 12 MP picture, a sixth of that on
    /// a card's window. Display P3 and sRGB share their tone curve, so resampling before
    /// the conversion makes the same picture as libvips's order (tested on iPhone photos).
    package let transform: ColourTransform?
    package var transformAfterResampling: ColourTransform? { transform }
    /// The EXIF orientation that turns the stored picture upright (nil: libheif's own
    /// transformations make it upright).
    package let turn: Int?

    /// The photo as a fast-path source, or nil when it must go the libvips way (which says
    /// what is wrong with it). `header` is libvips's reading of the same bytes (its limits
    /// already checked).
    package init?(_ photo: ImageData, header: ImageHeader) {
        guard header.format == .heif, header.orientation == 1, HEIFCodec.isAvailable,
            let info = try? photo.withUnsafeBytes({ bytes throws(HEIFCodec.Failure) in try HEIFCodec.info(of: bytes) }),
            info.bits == 8, !info.hasAlpha, info.width == header.width, info.height == header.height
        else { return nil }
        if info.hasICCProfile {
            guard
                let profile = try? photo.withUnsafeBytes({ bytes throws(HEIFCodec.Failure) in
                    try HEIFCodec.iccProfile(of: bytes)
                }),
                let transform = try? ColourTransform.toSRGB(from: profile)
            else { return nil }
            self.transform = transform
        } else {
            transform = nil
        }
        self.photo = photo
        self.info = info
        turn = photo.withUnsafeBytes { HEIFCodec.turn(of: $0) }
    }

    /// The upright size. HEVC has no DCT scale: `shrink` is always 1 (`CardPlan`).
    package func uprightSize(shrink: Int) -> (width: Int, height: Int) {
        precondition(shrink == 1, "FastHEIFSource: HEVC decodes at full size only")
        return (info.width, info.height)
    }

    /// The photo decoded whole, upright, in its own colour space (`transformAfterResampling`
    /// converts it; libheif has no partial decode: `rows` is not used, and the pixels start
    /// at row 0).
    /// - Throws: `ImageInputError.damaged` naming the file, with libheif's reason (libheif
    ///   decodes all or nothing, as on libvips's path, whatever the damage policy).
    package func decodeUpright(shrink: Int, rows: Range<Int>?, policy: DecodePolicy) throws
        -> (image: MemoryImage, top: Int, warning: String?)
    {
        precondition(shrink == 1, "FastHEIFSource: HEVC decodes at full size only")
        do {
            let image = try photo.withUnsafeBytes { bytes throws(HEIFCodec.Failure) in
                try HEIFCodec.decode(bytes, info: info, turn: turn)
            }
            return (image, 0, nil)
        } catch {
            throw ImageInputError.damaged(file: photo.name, detail: error.message)
        }
    }
}
