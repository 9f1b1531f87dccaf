import VipsKit

/// A colour effect on the photo, blended with the original by `strength`.
///
/// Formulas (R, G, B in 0...255; s = strength, I = identity):
/// - `bw`: Y = 0.299 R + 0.587 G + 0.114 B (Rec. 601 luma) in all three bands.
/// - `sepia`: the classic sepia matrix
///   R' = 0.393 R + 0.769 G + 0.189 B, G' = 0.349 R + 0.686 G + 0.168 B,
///   B' = 0.272 R + 0.534 G + 0.131 B, clipped to 255.
/// - `vintage`: a warm, slightly faded matrix
///   R' = 0.90 R + 0.15 G + 0.05 B, G' = 0.05 R + 0.85 G + 0.08 B, B' = 0.05 R + 0.10 G + 0.70 B,
///   then lower contrast with lifted blacks (x' = 0.82 x + 28), then a vignette that
///   multiplies by 1 - 0.35 d², d² being the squared distance from the centre averaged
///   over both axes (0 at the centre, 1 in the corners). No randomness: same in, same out.
/// - `normal`: none.
/// Strength blends by interpolating the parameters: matrix s M + (1 - s) I, contrast
/// 1 - 0.18 s, lift 28 s, vignette 0.35 s; so strength 0 is `normal` exactly.
public struct ColourEffect: Sendable, Equatable, Hashable, Codable {
    /// The effects the app offered.
    public enum Name: String, Sendable, CaseIterable, Codable {
        case normal, bw, sepia, vintage
    }

    /// Which effect.
    public var name: Name
    /// 0...1; 1 is the full effect, 0 the original.
    public var strength: Double

    public init(_ name: Name, strength: Double = 1) {
        self.name = name
        self.strength = strength
    }

    /// No effect.
    public static let normal = ColourEffect(.normal)

    /// The effect as numbers, strength applied (see the type's formulas): v = (M p) x
    /// contrast + lift, times 1 - vignette x d². Nil when it changes nothing.
    public var parameters: (matrix: [[Double]], contrast: Double, lift: Double, vignette: Double)? {
        let s = max(0, min(1, strength))
        guard name != .normal, s > 0 else { return nil }
        switch name {
        case .normal:
            return nil
        case .bw:
            let luma = [0.299, 0.587, 0.114]
            return (Self.blend([luma, luma, luma], s), 1, 0, 0)
        case .sepia:
            let sepia = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]
            return (Self.blend(sepia, s), 1, 0, 0)
        case .vintage:
            let warm = [[0.90, 0.15, 0.05], [0.05, 0.85, 0.08], [0.05, 0.10, 0.70]]
            return (Self.blend(warm, s), 1 - 0.18 * s, 28 * s, 0.35 * s)
        }
    }

    /// Applies the effect to an opaque 8-bit sRGB image.
    /// - Throws: `VipsError` from the libvips operations (`recomb`, `linear`, `multiply`).
    public func apply(to image: VImage) throws -> VImage {
        guard let parameters else { return image }
        var result = try image.recombined(parameters.matrix)
        if parameters.contrast != 1 || parameters.lift != 0 {
            result = try result.linear([parameters.contrast], [parameters.lift])
        }
        if parameters.vignette != 0 {
            result = try result.multiplied(
                by: Self.vignette(width: image.width, height: image.height, depth: parameters.vignette))
        }
        return try result.castToUChar()
    }

    /// s M + (1 - s) I.
    static func blend(_ matrix: [[Double]], _ s: Double) -> [[Double]] {
        matrix.enumerated().map { row, values in
            values.enumerated().map { column, value in s * value + (1 - s) * (row == column ? 1 : 0) }
        }
    }

    /// A one-band float mask 1 - depth x d² (see the type's formulas).
    static func vignette(width: Int, height: Int, depth: Double) throws -> VImage {
        let halfWidth = Double(width) / 2
        let halfHeight = Double(height) / 2
        // (x, y) -> ((x + 0.5) / halfWidth - 1, (y + 0.5) / halfHeight - 1): -1...1 on each axis.
        let centred = try VImage.coordinates(width: width, height: height)
            .linear([1 / halfWidth, 1 / halfHeight], [0.5 / halfWidth - 1, 0.5 / halfHeight - 1])
        let squared = try centred.multiplied(by: centred).bandMean()
        return try squared.linear([-depth], [1])
    }
}
