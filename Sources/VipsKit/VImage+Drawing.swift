internal import CVips
internal import CVipsShim

extension VImage {
    /// How text lines sit in their box.
    public enum TextAlignment: Sendable {
        case left, centre, right
    }

    /// Renders `text` as a one-band 8-bit mask (255 = ink). The text is Pango markup: escape
    /// it with `VImage.escapingMarkup` unless markup is meant.
    /// - Parameters:
    ///   - font: a Pango description, e.g. `Liberation Sans 14` (size in points).
    ///   - fontFile: the font file loaded for this text, so output never depends on the
    ///     fonts a machine happens to have.
    ///   - width: wrap width in pixels, 0 for none.
    ///   - dpi: resolution the point size is rendered at.
    /// libvips: `vips_text`.
    public static func text(
        _ text: String, font: String, fontFile: String, width: Int = 0, alignment: TextAlignment = .left, dpi: Int
    ) throws(VipsError) -> VImage {
        Vips.requireStarted()
        let align: VipsAlign =
            switch alignment {
            case .left: VIPS_ALIGN_LOW
            case .centre: VIPS_ALIGN_CENTRE
            case .right: VIPS_ALIGN_HIGH
            }
        var output: UnsafeMutablePointer<VipsImage>?
        try vipsCall("text", file: fontFile) {
            CVipsShim_text(&output, text, font, fontFile, Int32(width), align, Int32(dpi))
        }
        guard let output else { throw takeVipsError("text", file: fontFile) }
        return VImage(owning: output, origin: nil)
    }

    /// `text` with `&`, `<` and `>` escaped, so Pango prints what a customer typed.
    public static func escapingMarkup(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A `width` x `height` 8-bit image of one `colour` (one value per band), computed on
    /// demand (`drawingRectangles` copies it into memory).
    /// libvips: `vips_black`, `vips_linear`.
    public static func solid(width: Int, height: Int, colour: [Double]) throws(VipsError) -> VImage {
        Vips.requireStarted()
        var output: UnsafeMutablePointer<VipsImage>?
        try vipsCall("black", file: nil) { CVipsShim_black(&output, Int32(width), Int32(height), Int32(colour.count)) }
        guard let output else { throw takeVipsError("black", file: nil) }
        let black = VImage(owning: output, origin: nil)
        return try black.linear(colour.map { _ in 1 }, colour, uchar: true)
    }

    /// A copy with filled rectangles drawn on it, each `(left, top, width, height, ink)`.
    ///
    /// libvips draws in place; the copy is new and not yet shared with any other thread,
    /// so drawing on it keeps the "images are immutable once shared" rule.
    /// libvips: `vips_image_copy_memory`, `vips_draw_rect`.
    public func drawingRectangles(_ rectangles: [(x: Int, y: Int, width: Int, height: Int, ink: [Double])])
        throws(VipsError)
        -> VImage
    {
        let copy = try inMemory()
        for rectangle in rectangles {
            try copy.withPointer { (image) throws(VipsError) in
                try vipsCall("draw_rect", file: origin) {
                    rectangle.ink.withUnsafeBufferPointer {
                        CVipsShim_draw_rect(
                            image, $0.baseAddress, Int32($0.count), Int32(rectangle.x), Int32(rectangle.y),
                            Int32(rectangle.width), Int32(rectangle.height))
                    }
                }
            }
        }
        return copy
    }

    /// The bounding box of the pixels that differ from `background` by more than
    /// `threshold`; nil when there are none.
    /// libvips: `vips_find_trim`.
    public func inkBox(background: [Double], threshold: Double = 10) throws(VipsError) -> (
        x: Int, y: Int, width: Int, height: Int
    )? {
        var (left, top, width, height): (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
        try withPointer { (image) throws(VipsError) in
            try vipsCall("find_trim", file: origin) {
                background.withUnsafeBufferPointer {
                    CVipsShim_find_trim(image, &left, &top, &width, &height, $0.baseAddress, Int32($0.count), threshold)
                }
            }
        }
        return width > 0 && height > 0 ? (Int(left), Int(top), Int(width), Int(height)) : nil
    }
}
