import FastPath
import FileUtilities
import PressKit
import PressPDF

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One postcard as the print shop takes it: a PDF/X file, page 1 the photo side and page 2
/// the back (when the card has one), in the press's CMYK.
///
/// - Page boxes: MediaBox = BleedBox = the page with its bleed, TrimBox the cut card.
/// - The photo side is one CMYK JPEG (DCTDecode) at the profile's dpi filling the page,
///   separated from sRGB through the condition's profile (relative colorimetric, black point
///   compensation, total ink held at the limit).
/// - The back is vector: rules, stamp box and glyph outlines filled with one colour each;
///   neutral colours (black text, grey rules) in black ink alone, so text is never rich
///   black; colour emoji are CMYK pictures laid over white (PDF/X-1a has no transparency).
/// - The output intent (`GTS_PDFX`) names the condition and embeds its profile; Info says
///   which PDF/X the file is, `Trapped` False.
/// - The bytes are a function of the inputs: the dates are fixed (`documentDate`), the
///   `/ID` is computed from the content, so the cache and `runs verify` work as for JPEG.
public struct PressDocument {
    /// The date written as the PDF's creation and modification date. PDF/X requires both;
    /// neither the photo nor the spec carries a print date, and the clock would make every
    /// render's bytes different.
    public static let documentDate = "D:20260101000000Z"

    /// The press profile the file is made for.
    public let press: PressProfile

    public init(press: PressProfile) {
        self.press = press
    }

    /// The photo side separated to the press's CMYK and encoded, once per card.
    public struct SeparatedPhoto {
        /// The CMYK JPEG (Adobe's inverted storage).
        public let jpeg: [UInt8]
        public let width: Int, height: Int
    }

    /// `front` (the photo side's print pixels, trim plus bleed at the profile's dpi, sRGB)
    /// separated through the condition's profile with its ink limit, as a JPEG of `quality`.
    /// - Throws: `ColourTransform.Failure`, `JPEGCodec.Failure`.
    public func separate(_ front: MemoryImage, quality: Int) throws -> SeparatedPhoto {
        let condition = press.condition
        let transform = try ColourTransform.toPress(profile: condition.profile, inkLimit: condition.inkLimit)
        let jpeg = try JPEGCodec.encodeCMYK(
            transform.cmyk(front), width: front.width, height: front.height, quality: quality)
        return SeparatedPhoto(jpeg: jpeg, width: front.width, height: front.height)
    }

    /// The PDF of one postcard: `photo` on page 1, `back` (this postcard's recipient; nil
    /// for a card without a back) on page 2, `title` as the document's title, `info` as more
    /// Info entries (the destination `impose --sort destination` reads: `/DestinationCountry`...).
    /// - Throws: `ColourTransform.Failure`, `QPDFDocument.Failure`.
    public func pdf(photo: SeparatedPhoto, back: VersoArtwork?, title: String, info extra: [(String, String)] = [])
        throws -> [UInt8]
    {
        let condition = press.condition
        let transform = try ColourTransform.toPress(profile: condition.profile, inkLimit: condition.inkLimit)
        let document = try QPDFDocument()
        let dpi = Double(press.dpi)
        let bleed = Double(press.cardFormat.bleedPixels)

        let image = try document.stream(
            photo.jpeg, filter: "DCTDecode",
            entries: [
                ("/Type", try document.object("/XObject")), ("/Subtype", try document.object("/Image")),
                ("/Width", try document.object("\(photo.width)")), ("/Height", try document.object("\(photo.height)")),
                ("/ColorSpace", try document.object("/DeviceCMYK")),
                ("/BitsPerComponent", try document.object("8")),
                ("/Decode", try document.object("[1 0 1 0 1 0 1 0]")),
            ])
        let frontSize = (width: Double(photo.width) * 72 / dpi, height: Double(photo.height) * 72 / dpi)
        let frontContent =
            "q \(PDFSyntax.number(frontSize.width)) 0 0 \(PDFSyntax.number(frontSize.height)) 0 0 cm /Photo Do Q\n"
        try addPage(
            document, size: frontSize, bleed: bleed * 72 / dpi, content: frontContent,
            resources: [("/Photo", image)])

        if let back {
            let (content, pictures) = try backContent(back, transform: transform, document: document)
            let size = (width: Double(back.width) * 72 / dpi, height: Double(back.height) * 72 / dpi)
            try addPage(document, size: size, bleed: bleed * 72 / dpi, content: content, resources: pictures)
        }

        let profile = try document.stream(condition.profile, entries: [("/N", try document.object("4"))])
        let intent = try document.object(
            "<< /Type /OutputIntent /S /GTS_PDFX /OutputConditionIdentifier \(PDFSyntax.text(condition.identifier)) "
                + "/OutputCondition \(PDFSyntax.text(condition.description)) /RegistryName \(PDFSyntax.text(condition.registry)) "
                + "/Info \(PDFSyntax.text(condition.description)) >>")
        try document.set("/DestOutputProfile", of: intent, to: profile)
        try document.set("/OutputIntents", of: document.root, to: try document.array([intent]))

        let version =
            press.format == .pdfX1a
            ? "/GTS_PDFXVersion (PDF/X-1:2001) /GTS_PDFXConformance (PDF/X-1a:2001)"
            : "/GTS_PDFXVersion (PDF/X-4)"
        let info = try document.indirect(
            "<< /Title \(PDFSyntax.text(title)) /Creator (cardrender) /Producer (cardrender with libqpdf) "
                + "/CreationDate (\(Self.documentDate)) /ModDate (\(Self.documentDate)) /Trapped /False \(version)"
                + extra.map { " /\($0.0) \(PDFSyntax.text($0.1))" }.joined() + " >>")
        try document.set("/Info", of: document.trailer, to: info)
        if press.format == .pdfX4 {
            let metadata = try document.stream(
                Array(xmp(title: title).utf8),
                entries: [("/Type", try document.object("/Metadata")), ("/Subtype", try document.object("/XML"))])
            try document.set("/Metadata", of: document.root, to: metadata)
        }
        return try document.write(version: press.format.pdfVersion)
    }

    /// Appends a page whose bleed box is `size` points with the trim `bleed` points inside;
    /// with the profile's crop marks, the media box adds a slug around it that holds them.
    private func addPage(
        _ document: QPDFDocument, size: (width: Double, height: Double), bleed: Double, content: String,
        resources: [(String, QPDFDocument.Object)]
    ) throws {
        var content = content
        var slug = 0.0
        if press.cropMarks {
            let marks = (SheetLayout.markOffset + SheetLayout.markLength) / 25.4 * 72
            slug = marks
            let layout = try SheetLayout(
                sheet: .millimetres((size.width + 2 * marks) / 72 * 25.4, (size.height + 2 * marks) / 72 * 25.4),
                cardWidth: size.width, cardHeight: size.height, bleed: bleed, turns: false)
            content =
                "q 1 0 0 1 \(PDFSyntax.number(slug)) \(PDFSyntax.number(slug)) cm\n\(content)Q\n"
                + "q 0 0 0 1 K 0.25 w\n\(layout.marks)S Q\n"
        }
        func box(_ inset: Double) -> String {
            "[\(PDFSyntax.number(inset)) \(PDFSyntax.number(inset)) \(PDFSyntax.number(size.width + 2 * slug - inset)) "
                + "\(PDFSyntax.number(size.height + 2 * slug - inset))]"
        }
        try document.addPage(
            "/MediaBox \(box(0)) /BleedBox \(box(slug)) /TrimBox \(box(slug + bleed))", xObjects: resources,
            content: content)
    }

    /// The back's content stream (pixels mapped to points, y down) and its pictures.
    private func backContent(_ back: VersoArtwork, transform: ColourTransform, document: QPDFDocument) throws -> (
        String, [(String, QPDFDocument.Object)]
    ) {
        let scale = 72 / Double(back.dpi)
        let pageHeight = Double(back.height) * scale
        var content =
            "q \(PDFSyntax.number(scale)) 0 0 \(PDFSyntax.number(-scale)) 0 \(PDFSyntax.number(pageHeight)) cm\n"
        for fill in back.fills {
            let ink = Self.ink(fill.rgb, transform: transform)
            content +=
                "q \(PDFSyntax.number(fill.scaleX)) 0 0 1 \(PDFSyntax.number(fill.origin.x)) \(PDFSyntax.number(fill.origin.y)) cm \(ink) k\n\(fill.path)f Q\n"
        }
        var resources: [(String, QPDFDocument.Object)] = []
        for (index, picture) in back.pictures.enumerated() {
            // Over white: PDF/X-1a allows no soft mask, and the back is white paper there.
            var rgb = [UInt8](repeating: 255, count: picture.width * picture.height * 3)
            for pixel in 0..<(picture.width * picture.height) {
                let alpha = Int(picture.rgba[4 * pixel + 3])
                for channel in 0..<3 {
                    let value = Int(picture.rgba[4 * pixel + channel])
                    rgb[3 * pixel + channel] = UInt8((value * alpha + 255 * (255 - alpha) + 127) / 255)
                }
            }
            let cmyk = transform.cmyk(MemoryImage(width: picture.width, height: picture.height, pixels: rgb))
            let name = "/Emoji\(index + 1)"
            let image = try document.stream(
                cmyk,
                entries: [
                    ("/Type", try document.object("/XObject")), ("/Subtype", try document.object("/Image")),
                    ("/Width", try document.object("\(picture.width)")),
                    ("/Height", try document.object("\(picture.height)")),
                    ("/ColorSpace", try document.object("/DeviceCMYK")),
                    ("/BitsPerComponent", try document.object("8")),
                ])
            resources.append((name, image))
            // y down: the image's top row at `y`.
            content +=
                "q \(picture.width) 0 0 \(-picture.height) \(PDFSyntax.number(picture.x)) \(PDFSyntax.number(picture.y + Double(picture.height))) cm \(name) Do Q\n"
        }
        content += "Q\n"
        return (content, resources)
    }

    /// The CMYK fill operands for an sRGB colour: black ink alone for a neutral (grey, black),
    /// so text and rules are never rich black; else the press's separation of the colour.
    static func ink(_ rgb: [Double], transform: ColourTransform) -> String {
        let channels = rgb.map { max(0, min(255, $0.rounded())) }
        if channels[0] == channels[1], channels[1] == channels[2] {
            return "0 0 0 \(PDFSyntax.number(1 - channels[0] / 255))"
        }
        let cmyk = transform.cmyk(MemoryImage(width: 1, height: 1, pixels: channels.map { UInt8($0) }))
        return cmyk.map { PDFSyntax.number(Double($0) / 255) }.joined(separator: " ")
    }

    /// The XMP packet PDF/X-4 requires: title, dates, PDF/X version, trapping, and IDs made
    /// from the title and the condition (stable across renders, as the bytes must be).
    private func xmp(title: String) -> String {
        let date = "2026-01-01T00:00:00Z"
        let digits = String(StableHash.fnv1a((title + press.name + press.condition.profileDigest).utf8), radix: 16)
        let hex = String(repeating: "0", count: 16 - digits.count) + digits
        let uuid =
            "uuid:\(hex.prefix(8))-\(hex.dropFirst(8).prefix(4))-4\(hex.dropFirst(13).prefix(3))-8000-\(hex.prefix(12))"
        // XML 1.0 has no way to write most control characters (a file name may hold them):
        // they are left out of the XMP title; `/Title` in Info keeps the name whole.
        var escapedTitle = ""
        for scalar in title.unicodeScalars {
            switch scalar {
            case "&": escapedTitle += "&amp;"
            case "<": escapedTitle += "&lt;"
            case ">": escapedTitle += "&gt;"
            case "\t", "\n", "\r": escapedTitle.unicodeScalars.append(scalar)
            case "\u{0}"..."\u{1F}", "\u{FFFE}", "\u{FFFF}": continue
            default: escapedTitle.unicodeScalars.append(scalar)
            }
        }
        return """
            <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
            <x:xmpmeta xmlns:x="adobe:ns:meta/">
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" \
            xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/" \
            xmlns:pdfxid="http://www.npes.org/pdfx/ns/id/" xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/">
            <dc:title><rdf:Alt><rdf:li xml:lang="x-default">\(escapedTitle)</rdf:li></rdf:Alt></dc:title>
            <xmp:CreateDate>\(date)</xmp:CreateDate>
            <xmp:ModifyDate>\(date)</xmp:ModifyDate>
            <xmp:MetadataDate>\(date)</xmp:MetadataDate>
            <xmp:CreatorTool>cardrender</xmp:CreatorTool>
            <pdf:Producer>cardrender with libqpdf</pdf:Producer>
            <pdf:Trapped>False</pdf:Trapped>
            <pdfxid:GTS_PDFXVersion>PDF/X-4</pdfxid:GTS_PDFXVersion>
            <xmpMM:DocumentID>\(uuid)</xmpMM:DocumentID>
            <xmpMM:InstanceID>\(uuid)</xmpMM:InstanceID>
            <xmpMM:VersionID>1</xmpMM:VersionID>
            <xmpMM:RenditionClass>default</xmpMM:RenditionClass>
            </rdf:Description>
            </rdf:RDF>
            </x:xmpmeta>
            <?xpacket end="w"?>
            """
    }
}
