import FastPath
import ImageCore

/// A photo the fast executor decodes itself: a JPEG through libjpeg-turbo (`FastJPEGSource`)
/// or an HEIF through libheif (`FastHEIFSource`). What `FastCardRenderer` needs of either.
package protocol FastPhotoSource {
    /// The encoded photo (its `name` is used in errors).
    var photo: ImageData { get }

    /// The upright size of the photo decoded at 1/`shrink` (the plan's DCT scale).
    func uprightSize(shrink: Int) -> (width: Int, height: Int)

    /// The photo decoded at 1/`shrink` and turned upright: at least the upright rows `rows`
    /// when given (a source may decode more), all of it otherwise.
    /// - Returns: the pixels, the upright row their first row is, and the warning of a
    ///   lenient decode.
    /// - Throws: `ImageInputError.damaged` naming the file.
    func decodeUpright(shrink: Int, rows: Range<Int>?, policy: DecodePolicy) throws
        -> (image: MemoryImage, top: Int, warning: String?)

    /// The level `level` of the photo (`DecodeLevel`), upright: at least its rows `rows` when
    /// given, all of it otherwise. The default decodes the rows of the decode that make them
    /// and halves them; a source that keeps levels answers from what it keeps.
    /// - Returns: the pixels, the level's row their first row is, and the warning.
    func decodeLevel(_ level: DecodeLevel, rows: Range<Int>?, policy: DecodePolicy) throws
        -> (image: MemoryImage, top: Int, warning: String?)

    /// The conversion to sRGB the renderer applies to the photo's pixels once resampled (to
    /// the window's 2 MP rather than a 12 MP picture), or nil when `decodeUpright` returns
    /// sRGB pixels already (a JPEG converts its rows as they are decoded).
    var transformAfterResampling: ColourTransform? { get }
}

extension FastPhotoSource {
    /// The upright size of `level`.
    package func levelSize(_ level: DecodeLevel) -> (width: Int, height: Int) {
        level.size(fromDecoded: uprightSize(shrink: level.shrink))
    }

    package func decodeLevel(_ level: DecodeLevel, rows: Range<Int>?, policy: DecodePolicy) throws
        -> (image: MemoryImage, top: Int, warning: String?)
    {
        guard level.halvings > 0 else { return try decodeUpright(shrink: level.shrink, rows: rows, policy: policy) }
        let group = 1 << level.halvings
        let height = uprightSize(shrink: level.shrink).height
        let decodedRows = rows.map { ($0.lowerBound * group)..<min(height, $0.upperBound * group) }
        let band = try decodeUpright(shrink: level.shrink, rows: decodedRows, policy: policy)
        let (image, top) = level.halve(band.image, top: band.top, decodedHeight: height)
        return (image, top, band.warning)
    }
}
