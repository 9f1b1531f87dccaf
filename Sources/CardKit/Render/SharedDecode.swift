import FastPath
import ImageCore
import PhotoSources

/// A photo decoded once for a card's print and its sample: the first decode of a level's
/// rows takes the rows the sample will read as well (`reserve`), and later decodes at the
/// same DCT scale are answered from them (a source may answer more rows than asked:
/// `FastPhotoSource`). The sample then reads a halved level of the print's own decode
/// (`DecodeLevel`), as the service's previews read it from their kept levels.
final class SharedDecode<Source: FastPhotoSource>: FastPhotoSource {
    let source: Source
    /// The decoded rows at the print's DCT scale the sample will read.
    private let reserve: Range<Int>?
    /// The rows decoded so far, at `shrink`.
    private var band: (image: MemoryImage, top: Int, warning: String?, shrink: Int)?

    /// - Parameters:
    ///   - reserve: the rows of the decode the sample reads (nil: none, or all of it).
    ///   - band: rows decoded already (a streamed print's), at `shrink`.
    init(_ source: Source, reserve: Range<Int>?, band: (image: MemoryImage, top: Int, warning: String?, shrink: Int)?) {
        self.source = source
        self.reserve = reserve
        self.band = band
    }

    var photo: ImageData { source.photo }
    var transformAfterResampling: ColourTransform? { source.transformAfterResampling }

    func uprightSize(shrink: Int) -> (width: Int, height: Int) { source.uprightSize(shrink: shrink) }

    func decodeUpright(shrink: Int, rows: Range<Int>?, policy: DecodePolicy) throws
        -> (image: MemoryImage, top: Int, warning: String?)
    {
        let height = source.uprightSize(shrink: shrink).height
        let asked = rows ?? 0..<height
        if let band, band.shrink == shrink, band.top <= asked.lowerBound,
            band.top + band.image.height >= asked.upperBound
        {
            return (band.image, band.top, band.warning)
        }
        var wanted = rows
        if let rows, let reserve {
            wanted = min(rows.lowerBound, reserve.lowerBound)..<max(rows.upperBound, reserve.upperBound)
        }
        let decoded = try source.decodeUpright(shrink: shrink, rows: wanted, policy: policy)
        band = (decoded.image, decoded.top, decoded.warning, shrink)
        return decoded
    }
}
