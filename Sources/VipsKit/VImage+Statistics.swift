internal import CVips
internal import CVipsShim

extension VImage {
    /// The mean of all pixel values over all bands.
    /// libvips: `vips_avg`.
    public func average() throws(VipsError) -> Double {
        var mean = 0.0
        try withPointer { (input) throws(VipsError) in
            try vipsCall("avg", file: origin) { CVipsShim_avg(input, &mean) }
        }
        return mean
    }

    /// Where libvips's attention measure (edges, skin tones and saturated colour, as its
    /// `smartcrop` weighs them) would centre a `width` x `height` crop of this image, in its
    /// pixels. The crop must fit in the image.
    /// libvips: `vips_smartcrop` with `interesting=attention` (its `attention_x`/`attention_y`).
    public func attentionCentre(width: Int, height: Int) throws(VipsError) -> (x: Int, y: Int) {
        var (x, y): (Int32, Int32) = (0, 0)
        try withPointer { (input) throws(VipsError) in
            try vipsCall("smartcrop", file: origin) {
                CVipsShim_attention_centre(input, Int32(width), Int32(height), &x, &y)
            }
        }
        return (Int(x), Int(y))
    }

    /// The band values of the pixel at (`x`, `y`).
    /// libvips: `vips_getpoint`.
    public func pixel(x: Int, y: Int) throws(VipsError) -> [Double] {
        var vector: UnsafeMutablePointer<Double>?
        var count: Int32 = 0
        try withPointer { (input) throws(VipsError) in
            try vipsCall("getpoint", file: origin) { CVipsShim_getpoint(input, &vector, &count, Int32(x), Int32(y)) }
        }
        defer { g_free(vector) }
        return (0..<Int(count)).map { vector![$0] }
    }

    /// Mean absolute difference per band value between two images of the same size and
    /// bands (0 = identical, 255 = opposite).
    /// libvips: `vips_subtract`, `vips_abs`, `vips_avg`.
    public func meanAbsoluteDifference(to other: VImage) throws(VipsError) -> Double {
        let difference = try other.withPointer { (right) throws(VipsError) in
            try derive("subtract") { CVipsShim_subtract($0, right, $1) }
        }
        return try difference.derive("abs") { CVipsShim_abs($0, $1) }.average()
    }

    /// The first `count` bands from `band` on (e.g. drop alpha: `bands(0, count: 3)`).
    /// libvips: `vips_extract_band`.
    public func bands(_ band: Int, count: Int = 1) throws(VipsError) -> VImage {
        try derive("extract_band") { CVipsShim_extract_band($0, $1, Int32(band), Int32(count)) }
    }
}
