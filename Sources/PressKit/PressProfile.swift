/// What one print shop takes: the card's trim and bleed, the resolution, the file format
/// and, for a CMYK press, the printing condition its colours are separated for. A profile
/// is data; the presets are the shops' published requirements (`presets`, README "For the
/// print shop").
public struct PressProfile: Sendable, Hashable, Encodable {
    /// The print file's container.
    public enum Format: String, Sendable, Hashable, Encodable {
        /// PDF/X-1a:2001: CMYK only, no transparency, PDF 1.3.
        case pdfX1a = "PDF/X-1a:2001"
        /// PDF/X-4 (ISO 15930-7:2010): CMYK here too, PDF 1.6, XMP metadata.
        case pdfX4 = "PDF/X-4"

        /// The PDF version the standard requires.
        public var pdfVersion: String { self == .pdfX1a ? "1.3" : "1.6" }
    }

    /// The name `render --press` takes.
    public var name: String
    /// Who asks for this file and where they say so (shown in `--help` and README).
    public var source: String
    /// The trimmed card.
    public var size: PaperSize
    /// Bleed on each side beyond the trim, in millimetres.
    public var bleed: Double
    /// Distance inside the trim that text and faces should keep from the cut, in millimetres.
    public var safeZone: Double
    /// Resolution of the photo side.
    public var dpi: Int
    /// The container.
    public var format: Format
    /// The printing condition the colours are separated for.
    public var condition: PressCondition
    /// Crop marks on each postcard, in a slug around the bleed (for a shop that cuts single
    /// cards itself). Shops that take print-ready postcards want none; sheets for a shop's
    /// own cutter get theirs from `cardrender impose`.
    public var cropMarks: Bool

    public init(
        name: String, source: String, size: PaperSize, bleed: Double, safeZone: Double, dpi: Int = 300,
        format: Format, condition: PressCondition, cropMarks: Bool = false
    ) {
        self.name = name
        self.source = source
        self.size = size
        self.bleed = bleed
        self.safeZone = safeZone
        self.dpi = dpi
        self.format = format
        self.condition = condition
        self.cropMarks = cropMarks
    }

    /// The presets, with the printing conditions they name (loaded by the caller from the
    /// bundled profiles, `press/profiles`).
    public static func presets(fogra39: PressCondition, gracol2006: PressCondition) -> [PressProfile] {
        [
            PressProfile(
                name: "eu-a6-fogra39",
                source: "EU print shops (printcarrier, joon.eu, flyeralarm): PDF/X-1a, ISO Coated v2 (FOGRA39), "
                    + "total ink 300-330 %, 1-5 mm bleed, black text K only",
                size: .a6, bleed: 3, safeZone: 5, format: .pdfX1a, condition: fogra39),
            PressProfile(
                name: "us-4x6-gracol",
                source: "Lob postcards: PDF/X-1a, CMYK (GRACoL 2006), 4x6 in sent as 4.25x6.25 in (1/8 in bleed), "
                    + "fonts outlined, 300 ppi",
                size: .inches4x6, bleed: 3.175, safeZone: 3.175, format: .pdfX1a, condition: gracol2006),
            PressProfile(
                name: "gelato-a6",
                source: "Gelato: PDF/X-4, CMYK with the GRACoL 2006 intent, 4 mm bleed, black text 0/0/0/100",
                size: .a6, bleed: 4, safeZone: 4, format: .pdfX4, condition: gracol2006),
        ]
    }

    /// The name of today's print file, an RGB JPEG per side at the spec's size, dpi and
    /// bleed: no press profile at all.
    public static let rgbJPEGName = "rgb-jpeg"
}
