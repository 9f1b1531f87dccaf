#if canImport(Glibc)
    import Glibc
#endif

/// ThumbHash (Evan Wallace's public format, github.com/evanw/thumbhash): an image's
/// colours and shape in about 25 bytes, which a page decodes to a blurred placeholder.
///
/// Written here because no package of the ones this project may use encodes it; it is the
/// format's published encoding, step for step: the average colour, then the luminance
/// (L = (r+g+b)/3), yellow-blue (P = (r+g)/2 - b) and red-green (Q = r - g) channels and the
/// alpha as DCT coefficients, each channel's AC terms normalised to its largest and
/// quantised to 4 bits, after a 5-byte header (6 with alpha) of the DC terms and scales.
public enum ThumbHash {
    /// The hash of `width` x `height` pixels of 8-bit RGBA (or RGB with `bands` 3), at
    /// most 100 x 100 (the format's bound: more adds nothing but time).
    public static func encode(width: Int, height: Int, pixels: [UInt8], bands: Int) -> [UInt8] {
        precondition(width >= 1 && height >= 1 && width <= 100 && height <= 100, "ThumbHash: at most 100x100")
        precondition(bands == 3 || bands == 4, "ThumbHash: RGB or RGBA")
        precondition(pixels.count == width * height * bands, "ThumbHash: \(width)x\(height)x\(bands) pixels")
        let count = width * height
        func alpha(_ index: Int) -> Double { bands == 4 ? Double(pixels[index * 4 + 3]) / 255 : 1 }
        func value(_ index: Int, _ band: Int) -> Double { Double(pixels[index * bands + band]) / 255 }
        // The average colour, weighted by alpha.
        var (averageR, averageG, averageB, averageA) = (0.0, 0.0, 0.0, 0.0)
        for index in 0..<count {
            let a = alpha(index)
            averageR += a * value(index, 0)
            averageG += a * value(index, 1)
            averageB += a * value(index, 2)
            averageA += a
        }
        if averageA > 0 {
            averageR /= averageA
            averageG /= averageA
            averageB /= averageA
        }
        let hasAlpha = averageA < Double(count)
        // Fewer luminance terms when alpha takes room.
        let limit = Double(hasAlpha ? 5 : 7)
        let longest = Double(max(width, height))
        let lx = max(1, Int((limit * Double(width) / longest).rounded()))
        let ly = max(1, Int((limit * Double(height) / longest).rounded()))
        // RGBA to LPQA, composited over the average colour.
        var l = [Double](repeating: 0, count: count)
        var p = l
        var q = l
        var a = l
        for index in 0..<count {
            let alphaValue = alpha(index)
            let r = averageR * (1 - alphaValue) + alphaValue * value(index, 0)
            let g = averageG * (1 - alphaValue) + alphaValue * value(index, 1)
            let b = averageB * (1 - alphaValue) + alphaValue * value(index, 2)
            l[index] = (r + g + b) / 3
            p[index] = (r + g) / 2 - b
            q[index] = r - g
            a[index] = alphaValue
        }
        let luminance = channel(l, width: width, height: height, nx: max(3, lx), ny: max(3, ly))
        let yellowBlue = channel(p, width: width, height: height, nx: 3, ny: 3)
        let redGreen = channel(q, width: width, height: height, nx: 3, ny: 3)
        let opacity = hasAlpha ? channel(a, width: width, height: height, nx: 5, ny: 5) : nil
        let isLandscape = width > height
        let header24 =
            quantise(63 * luminance.dc) | (quantise(31.5 + 31.5 * yellowBlue.dc) << 6)
            | (quantise(31.5 + 31.5 * redGreen.dc) << 12) | (quantise(31 * luminance.scale) << 18)
            | ((hasAlpha ? 1 : 0) << 23)
        let header16 =
            (isLandscape ? ly : lx) | (quantise(63 * yellowBlue.scale) << 3) | (quantise(63 * redGreen.scale) << 9)
            | ((isLandscape ? 1 : 0) << 15)
        var hash: [UInt8] = [
            UInt8(header24 & 255), UInt8((header24 >> 8) & 255), UInt8(header24 >> 16), UInt8(header16 & 255),
            UInt8(header16 >> 8),
        ]
        if let opacity { hash.append(UInt8(quantise(15 * opacity.dc) | (quantise(15 * opacity.scale) << 4))) }
        let terms = [luminance.ac, yellowBlue.ac, redGreen.ac] + (opacity.map { [$0.ac] } ?? [])
        var nibble = 0
        let start = hash.count
        for term in terms.joined() {
            let byte = start + nibble / 2
            if byte == hash.count { hash.append(0) }
            hash[byte] |= UInt8(quantise(15 * term) << ((nibble & 1) * 4))
            nibble += 1
        }
        return hash
    }

    /// One channel's DC term, its AC terms normalised to 0...1, and their scale: the
    /// coefficients (cx, cy) with cx x ny < nx x (ny - cy), a triangle of low frequencies.
    private static func channel(_ values: [Double], width: Int, height: Int, nx: Int, ny: Int)
        -> (dc: Double, ac: [Double], scale: Double)
    {
        var dc = 0.0
        var ac: [Double] = []
        var scale = 0.0
        var across = [Double](repeating: 0, count: width)
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                for x in 0..<width { across[x] = cos(Double.pi / Double(width) * Double(cx) * (Double(x) + 0.5)) }
                var sum = 0.0
                for y in 0..<height {
                    let down = cos(Double.pi / Double(height) * Double(cy) * (Double(y) + 0.5))
                    for x in 0..<width { sum += values[x + y * width] * across[x] * down }
                }
                sum /= Double(width * height)
                if cx > 0 || cy > 0 {
                    ac.append(sum)
                    scale = max(scale, abs(sum))
                } else {
                    dc = sum
                }
                cx += 1
            }
        }
        if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
        return (dc, ac, scale)
    }

    /// Rounded as JavaScript's `Math.round` rounds (halves up), which the format's
    /// reference encoder uses.
    private static func quantise(_ value: Double) -> Int { Int((value + 0.5).rounded(.down)) }
}
