internal import CVips
internal import CVipsShim

extension VImage {
    /// A `width` x `height` 8-bit image of one `colour` (one value per band), computed on
    /// demand (`drawingRectangles` copies it into memory).
    /// libvips: `vips_black`, `vips_linear`.
    public static func solid(width: Int, height: Int, colour: [Double]) throws(VipsError) -> VImage {
        try Vips.requireLoaded()
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
