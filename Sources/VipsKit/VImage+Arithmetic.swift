internal import CVips
internal import CVipsShim

extension VImage {
    /// Each output band is a weighted sum of the input bands: `matrix` has one row per
    /// output band and one column per input band.
    /// libvips: `vips_recomb`.
    public func recombined(_ matrix: [[Double]]) throws(VipsError) -> VImage {
        let flat = matrix.flatMap { $0 }
        let rows = matrix.count
        let columns = matrix.first?.count ?? 0
        return try derive("recomb") { input, output in
            flat.withUnsafeBufferPointer {
                CVipsShim_recomb(input, output, $0.baseAddress, Int32(rows), Int32(columns))
            }
        }
    }

    /// `a x pixel + b` per band (one value for all bands, or one per band); `uchar` rounds
    /// and clips to 0...255.
    /// libvips: `vips_linear`.
    public func linear(_ a: [Double], _ b: [Double], uchar: Bool = false) throws(VipsError) -> VImage {
        let count = max(a.count, b.count)
        let scale = (0..<count).map { a[min($0, a.count - 1)] }
        let offset = (0..<count).map { b[min($0, b.count - 1)] }
        return try derive("linear") { input, output in
            scale.withUnsafeBufferPointer { scalePointer in
                offset.withUnsafeBufferPointer {
                    CVipsShim_linear(
                        input, output, scalePointer.baseAddress, $0.baseAddress, Int32(count), uchar ? 1 : 0)
                }
            }
        }
    }

    /// Pixel-by-pixel product; a one-band `other` multiplies every band.
    /// libvips: `vips_multiply`.
    public func multiplied(by other: VImage) throws(VipsError) -> VImage {
        try other.withPointer { (right) throws(VipsError) in
            try derive("multiply") { CVipsShim_multiply($0, right, $1) }
        }
    }

    /// The mean of the bands, one band out.
    /// libvips: `vips_bandmean`.
    public func bandMean() throws(VipsError) -> VImage {
        try derive("bandmean") { CVipsShim_bandmean($0, $1) }
    }

    /// Casts to 8-bit, clipping. libvips: `vips_cast`.
    public func castToUChar() throws(VipsError) -> VImage {
        try derive("cast") { CVipsShim_cast($0, $1, VIPS_FORMAT_UCHAR) }
    }

    /// A `width` x `height` two-band image whose pixels hold their own (x, y).
    /// libvips: `vips_xyz`.
    public static func coordinates(width: Int, height: Int) throws(VipsError) -> VImage {
        try Vips.requireLoaded()
        var output: UnsafeMutablePointer<VipsImage>?
        try vipsCall("xyz", file: nil) { CVipsShim_xyz(&output, Int32(width), Int32(height)) }
        guard let output else { throw takeVipsError("xyz", file: nil) }
        return VImage(owning: output, origin: nil)
    }

    /// Opaque 8-bit sRGB with three bands: grey becomes RGB, alpha is flattened onto
    /// `background`, profiles are applied (see `normalisedToSRGB`).
    public func opaqueSRGB(background: [Double] = [255, 255, 255]) throws(VipsError) -> VImage {
        var image = try normalisedToSRGB().flattened(onto: background)
        if image.bands < 3 {
            image = try image.derive("colourspace") { CVipsShim_colourspace($0, $1, VIPS_INTERPRETATION_sRGB) }
        }
        return image
    }
}
