internal import CTextLayout
import VipsKit

/// Text laid out, checked and drawn by Pango (through cairo), for the message side.
///
/// The one Swift face of the `CTextLayout` C target. One layout gives the line count, the
/// characters no font could draw and the pixels, so what is counted is what is printed.
public struct TextLayout {
    /// A laid-out block of text.
    public struct Block {
        /// Lines as laid out: the text's own breaks plus word wrapping.
        public var lines: Int
        /// The first character drawn as a box because no font of the chain has it.
        public var missingCharacter: Unicode.Scalar?
        /// The text of the first line wider than the wrap width (a word too long to wrap).
        public var overflowingLine: String?
        /// The logical box in pixels (its width is the wrap width when wrapping).
        public var width: Int
        public var height: Int
        /// The drawn text (nil when only measured): straight colour and coverage, with the
        /// logical box's top left at `origin` in them (swashes may overhang the box).
        public var ink: (colour: VImage, alpha: VImage, origin: (x: Int, y: Int))?
    }

    /// How lines sit in the block; mirrored for right-to-left paragraphs.
    public enum Alignment: Int32, Sendable {
        case left = 0, centre = 1, right = 2
    }

    /// Opens Pango, cairo and fontconfig on first use.
    /// - Throws: `TextLayoutError` naming the library, or the function missing, when they
    ///   cannot be opened: thrown to the card (the batch reports it and goes on).
    static func requireLibraries() throws(TextLayoutError) {
        var error: UnsafePointer<CChar>?
        guard CTextLayout_load(&error) == 0 else {
            let reason = error.map { String(cString: $0) } ?? "Pango could not be loaded"
            throw TextLayoutError(message: "the message side needs Pango, cairo and fontconfig: \(reason)")
        }
    }

    /// Registers font files with fontconfig once per process, so a font is loaded from its
    /// own file whatever else the machine has.
    /// - Throws: `TextLayoutError` when fontconfig cannot read one.
    public static func register(fontFile: String) throws(TextLayoutError) {
        try requireLibraries()
        guard CTextLayout_add_font_file(fontFile) == 0 else {
            throw TextLayoutError(message: "\(fontFile): fontconfig cannot read this font file")
        }
    }

    /// Lays out `text` (plain text, never markup) in the Pango font description `font`.
    /// - Parameters:
    ///   - wrapWidth: the block's width in pixels, lines wrapped by words; nil for one
    ///     unwrapped block as wide as the text.
    ///   - colour: sRGB ink, 0-255 per channel; colour glyphs (emoji) keep their colours.
    ///   - draw: draw the pixels too; false only measures.
    /// - Throws: `TextLayoutError` (invalid UTF-8, no surface), `VipsError`.
    public static func layOut(
        _ text: String, font: String, dpi: Int, wrapWidth: Int?, alignment: Alignment = .left,
        colour: [Double] = [0, 0, 0], draw: Bool
    ) throws -> Block {
        try requireLibraries()
        var result = CTextLayout_Result()
        var error = [CChar](repeating: 0, count: 256)
        let status = colour.withUnsafeBufferPointer { rgb in
            CTextLayout_run(
                text, font, Int32(dpi), Int32(wrapWidth ?? -1), alignment.rawValue, rgb.baseAddress, draw ? 1 : 0,
                &result, &error, error.count)
        }
        defer { CTextLayout_free(&result) }
        guard status == 0 else {
            throw TextLayoutError(
                message: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        var block = Block(measures: result, text: text)
        if draw, let pixels = result.pixels {
            let (width, height) = (Int(result.width), Int(result.height))
            let count = width * height
            var colours = [UInt8](repeating: 0, count: count * 3)
            var alphas = [UInt8](repeating: 0, count: count)
            for index in 0..<count {
                colours[3 * index] = pixels[4 * index]
                colours[3 * index + 1] = pixels[4 * index + 1]
                colours[3 * index + 2] = pixels[4 * index + 2]
                alphas[index] = pixels[4 * index + 3]
            }
            block.ink = (
                try VImage.fromEightBitPixels(colours, width: width, height: height, bands: 3),
                try VImage.fromEightBitPixels(alphas, width: width, height: height, bands: 1),
                (Int(result.origin_x), Int(result.origin_y))
            )
        }
        return block
    }
}

extension TextLayout {
    /// A block laid out as outlines, for a PDF: the glyphs that have outlines as PDF path
    /// operators, and the colour glyphs (emoji) as images.
    public struct Outline {
        /// What the layout measured (no `ink`).
        public var block: Block
        /// PDF path-construction operators (`m`, `l`, `c`, `h`) of every glyph with an
        /// outline, in pixels, y down, the block's logical top left at 0, 0; empty when none.
        public var path: String
        /// The colour glyphs, drawn: top left in the block's pixels, straight RGBA.
        public var images: [(x: Double, y: Double, width: Int, height: Int, rgba: [UInt8])]
    }

    /// Lays out `text` exactly as `layOut` does (same arguments, same lines and checks) and
    /// gives its glyphs as outlines.
    /// - Throws: `TextLayoutError`.
    public static func outline(
        _ text: String, font: String, dpi: Int, wrapWidth: Int?, alignment: Alignment = .left
    ) throws -> Outline {
        try requireLibraries()
        var result = CTextLayout_Outline()
        var error = [CChar](repeating: 0, count: 256)
        let status = CTextLayout_outline(
            text, font, Int32(dpi), Int32(wrapWidth ?? -1), alignment.rawValue, &result, &error, error.count)
        defer { CTextLayout_free_outline(&result) }
        guard status == 0 else {
            throw TextLayoutError(
                message: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        let block = Block(measures: result.measures, text: text)
        let path =
            result.path.map {
                String(decoding: UnsafeRawBufferPointer(start: $0, count: result.path_length), as: UTF8.self)
            } ?? ""
        let images = (0..<Int(result.image_count)).map { index in
            let image = result.images[index]
            let count = Int(image.width) * Int(image.height) * 4
            return (
                x: image.x, y: image.y, width: Int(image.width), height: Int(image.height),
                rgba: [UInt8](UnsafeBufferPointer(start: image.pixels, count: count))
            )
        }
        return Outline(block: block, path: path, images: images)
    }
}

extension TextLayout.Block {
    /// What a layout of `text` measured (no ink yet).
    fileprivate init(measures: CTextLayout_Result, text: String) {
        self.init(
            lines: Int(measures.lines),
            missingCharacter: measures.unknown_glyphs > 0 ? Unicode.Scalar(measures.first_unknown) : nil,
            overflowingLine: nil, width: Int(measures.logical_width), height: Int(measures.logical_height), ink: nil)
        if measures.overflow_start >= 0 {
            let bytes = Array(text.utf8)
            let start = min(Int(measures.overflow_start), bytes.count)
            let end = min(start + Int(measures.overflow_length), bytes.count)
            overflowingLine = String(decoding: bytes[start..<end], as: UTF8.self)
        }
    }
}

/// Pango or cairo could not lay out a text.
public struct TextLayoutError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
