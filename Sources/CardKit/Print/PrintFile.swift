import ImageCore
import PressKit

/// The container a card's print files are written in, around what either executor makes:
/// an image per side (JPEG or TIFF, as today), or a press's PDF/X postcard per recipient
/// (the photo side separated to CMYK, the back as vector art). Not a libvips format: the PDF
/// is assembled from the print pixels and the back's outlines (`PressDocument`).
///
/// Part of the renderer's settings, hence of every cache key.
public enum PrintFile: Sendable, Hashable, Encodable {
    /// One image per side, encoded as the options say (JPEG by libjpeg-turbo on the fast
    /// path, TIFF and the rest by libvips), with its dpi.
    case image(EncodeOptions)
    /// One PDF/X postcard per recipient for the press, its photo side a CMYK JPEG of `quality`.
    case pdf(PressProfile, quality: Int)

    /// Today's print file: JPEG quality 92, full-resolution chroma (4:4:4), dpi kept.
    public static let jpeg = PrintFile.image(
        EncodeOptions(format: .jpeg, quality: 92, chroma: .full, keepResolution: true))

    /// The image encoding of a per-side print file (nil for a PDF).
    public var encoding: EncodeOptions? {
        if case .image(let options) = self { options } else { nil }
    }

    /// The press of a PDF print file (nil for an image).
    public var press: PressProfile? {
        if case .pdf(let press, _) = self { press } else { nil }
    }

    /// The JPEG quality of the print (of the PDF's photo side for a press).
    public var quality: Int {
        switch self {
        case .image(let options): options.quality
        case .pdf(_, let quality): quality
        }
    }

    /// The files' extension: `pdf`, `jpg`, `tif`...
    public var fileExtension: String {
        switch self {
        case .image(let options): options.format.fileExtension
        case .pdf: "pdf"
        }
    }

    /// Whether libjpeg-turbo writes the print pixels (a JPEG print, or a PDF's CMYK JPEG),
    /// so that the fast executor may make them.
    var isWrittenByLibjpeg: Bool {
        switch self {
        case .image(let options): options.format == .jpeg
        case .pdf: true
        }
    }
}
