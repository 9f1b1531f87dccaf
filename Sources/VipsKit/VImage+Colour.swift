internal import CVips
internal import CVipsShim

extension VImage {
    /// Converts to display-ready 8-bit pixels: sRGB (or grey) with alpha kept.
    ///
    /// - An embedded ICC profile (Display P3, Adobe RGB, a CMYK profile) is applied and
    ///   the pixels are transformed to sRGB, so stripping the profile afterwards is safe.
    /// - CMYK without a profile is read with libvips's built-in CMYK profile.
    /// - 16-bit RGB and grey become 8-bit; grey stays grey (1 band, or 2 with alpha).
    /// - Throws: `VipsError` naming the operation and this image's origin.
    /// libvips: `vips_icc_transform`, `vips_colourspace`, `vips_cast`.
    public func normalisedToSRGB() throws(VipsError) -> VImage {
        var image = self
        let space = interpretation
        if space == VIPS_INTERPRETATION_CMYK
            || (hasICCProfile && space != VIPS_INTERPRETATION_B_W
                && space != VIPS_INTERPRETATION_GREY16)
        {
            image = try image.derive("icc_transform") {
                CVipsShim_icc_transform($0, $1, "srgb", "cmyk", VIPS_INTENT_RELATIVE)
            }
        }
        switch image.interpretation {
        case VIPS_INTERPRETATION_GREY16:
            image = try image.derive("colourspace") { CVipsShim_colourspace($0, $1, VIPS_INTERPRETATION_B_W) }
        case VIPS_INTERPRETATION_B_W where image.bandFormat != VIPS_FORMAT_UCHAR:
            image = try image.derive("cast") { CVipsShim_cast($0, $1, VIPS_FORMAT_UCHAR) }
        case VIPS_INTERPRETATION_B_W:
            break
        case VIPS_INTERPRETATION_sRGB where image.bandFormat == VIPS_FORMAT_UCHAR:
            break
        default:
            image = try image.derive("colourspace") { CVipsShim_colourspace($0, $1, VIPS_INTERPRETATION_sRGB) }
        }
        if image.bandFormat != VIPS_FORMAT_UCHAR {
            image = try image.derive("cast") { CVipsShim_cast($0, $1, VIPS_FORMAT_UCHAR) }
        }
        return image
    }

    /// Blends alpha onto a solid background and drops the alpha band.
    /// - Parameter background: one value per colour band (0...255), white by default.
    /// libvips: `vips_flatten`.
    public func flattened(onto background: [Double] = [255, 255, 255]) throws(VipsError) -> VImage {
        guard hasAlpha else { return self }
        let colourBands = bands - 1
        let values = (0..<colourBands).map { background[min($0, background.count - 1)] }
        return try derive("flatten") { input, output in
            values.withUnsafeBufferPointer { CVipsShim_flatten(input, output, $0.baseAddress, Int32($0.count)) }
        }
    }
}
