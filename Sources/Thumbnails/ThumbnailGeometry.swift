/// What a thumbnail shows of its photo and how large it is (`ThumbnailBox.geometry`).
public struct ThumbnailGeometry: Sendable {
    /// A rectangle in the upright photo's pixels, fractions allowed.
    public struct Box: Sendable, Equatable {
        public var x: Double
        public var y: Double
        public var width: Double
        public var height: Double

        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// The part of the upright photo shown.
    public var crop: Box
    /// The size that part is resampled to.
    public var size: (width: Int, height: Int)
    /// The thumbnail's size: `size`, or the box `contain` pads to.
    public var canvas: (width: Int, height: Int)
    /// Where the photo lies on the canvas.
    public var offset: (x: Int, y: Int)

    /// Whether the whole photo is shown (no crop).
    public func isWhole(sourceWidth: Int, sourceHeight: Int) -> Bool {
        crop == Box(x: 0, y: 0, width: Double(sourceWidth), height: Double(sourceHeight))
    }

    /// Whether the canvas is larger than the photo on it (`contain`'s padding).
    public var isPadded: Bool { canvas != size }

    /// The size the whole photo is resampled to for this crop (the crop's scale applied to
    /// the whole photo): what the decoder's shrink and libvips's thumbnail aim at.
    public func wholeSize(sourceWidth: Int, sourceHeight: Int) -> (width: Int, height: Int) {
        (
            max(size.width, Int((Double(sourceWidth) * Double(size.width) / crop.width).rounded())),
            max(size.height, Int((Double(sourceHeight) * Double(size.height) / crop.height).rounded()))
        )
    }

    /// The same crop at most `side` pixels on its long side (a placeholder's), unpadded.
    public func reduced(toFit side: Int) -> ThumbnailGeometry {
        let scale = min(1, Double(side) / Double(max(size.width, size.height)))
        let small = (
            width: max(1, Int((Double(size.width) * scale).rounded())),
            height: max(1, Int((Double(size.height) * scale).rounded()))
        )
        return ThumbnailGeometry(crop: crop, size: small, canvas: small, offset: (0, 0))
    }
}
