/// The box a thumbnail fills: its width and height in CSS pixels, how the photo fits it,
/// which part a crop keeps, the background of a padded box and the screen's density.
///
/// A box of a width alone is the GD-style thumbnail (`width=N`, the height by the aspect
/// ratio); `canonical` makes every box that gives the same pixels the same value, so the
/// cache never holds two copies of one thumbnail.
public struct ThumbnailBox: Sendable, Hashable, Codable {
    /// How the photo fits a box of both a width and a height.
    public enum Fit: String, Sendable, Hashable, Codable, CaseIterable {
        /// Within the box, the aspect ratio kept: one side may be shorter (the default).
        case inside
        /// The whole box covered, the aspect ratio kept: exactly the box, the rest cropped.
        case cover
        /// Within the box, padded to exactly the box with `background`.
        case contain
        /// Exactly the box, stretched.
        case fill
    }

    /// Which part of the photo a `cover` crop keeps (and where `contain` places it).
    public enum Gravity: Sendable, Hashable, Codable {
        case centre, north, south, east, west, northEast, northWest, southEast, southWest
        /// The part libvips's attention measure finds most interesting (`smartcrop`).
        case attention
        /// Centred on this point, in fractions of the upright photo (0...1), as far as the
        /// crop can move.
        case focus(x: Double, y: Double)

        /// The names `gravity=` takes, compass points with or without the hyphen.
        public static let names: [String: Gravity] = [
            "centre": .centre, "center": .centre, "north": .north, "south": .south, "east": .east,
            "west": .west, "north-east": .northEast, "north-west": .northWest, "south-east": .southEast,
            "south-west": .southWest, "northeast": .northEast, "northwest": .northWest,
            "southeast": .southEast, "southwest": .southWest, "attention": .attention,
        ]

        /// Where the box's left and top lie in the room it can move in (0: left or top,
        /// 0.5: centred, 1: right or bottom); nil for the point-like gravities.
        package var anchor: (x: Double, y: Double)? {
            switch self {
            case .centre: (0.5, 0.5)
            case .north: (0.5, 0)
            case .south: (0.5, 1)
            case .east: (1, 0.5)
            case .west: (0, 0.5)
            case .northEast: (1, 0)
            case .northWest: (0, 0)
            case .southEast: (1, 1)
            case .southWest: (0, 1)
            case .attention, .focus: nil
            }
        }
    }

    /// Width in CSS pixels (times `dpr` in the image); nil: by the aspect ratio.
    public var width: Int?
    /// Height in CSS pixels; nil: by the aspect ratio.
    public var height: Int?
    /// How the photo fits a box of both sides.
    public var fit: Fit
    /// Which part a crop keeps.
    public var gravity: Gravity
    /// The padding of `contain` as 8-bit RGB; nil: transparent where the format has alpha,
    /// white where it has not.
    public var background: [UInt8]?
    /// Device pixels per CSS pixel, 1...4: the box is multiplied by it.
    public var dpr: Double

    public init(
        width: Int? = nil, height: Int? = nil, fit: Fit = .inside, gravity: Gravity = .centre,
        background: [UInt8]? = nil, dpr: Double = 1
    ) {
        self.width = width
        self.height = height
        self.fit = fit
        self.gravity = gravity
        self.background = background
        self.dpr = dpr
    }

    /// Whether this is the GD-style box: a width alone at density 1.
    public var isWidthOnly: Bool {
        let box = canonical
        return box.width != nil && box == ThumbnailBox(width: box.width)
    }

    /// The same box with every setting that cannot change its pixels reset: the density
    /// folded into the sides (`width=200&dpr=2` is `width=400`); a focal point to a
    /// thousandth; one side alone always fits `inside`; gravity only moves `cover` and
    /// `contain`; only `contain` pads. Two boxes of the same pixels are one cache entry, and
    /// a query's decimals cannot make endless variants of one thumbnail.
    public var canonical: ThumbnailBox {
        var box = self
        (box.width, box.height) = pixelSides
        box.dpr = 1
        if case .focus(let x, let y) = box.gravity {
            box.gravity = .focus(x: (x * 1000).rounded() / 1000, y: (y * 1000).rounded() / 1000)
        }
        if width == nil || height == nil || fit == .inside || fit == .fill {
            box.fit = width == nil || height == nil ? .inside : fit
            box.gravity = .centre
        }
        if box.fit == .contain, case .attention = box.gravity { box.gravity = .centre }
        if box.fit != .contain { box.background = nil }
        return box
    }

    /// The box's sides in image pixels (times `dpr`, rounded).
    package var pixelSides: (width: Int?, height: Int?) {
        (
            width.map { max(1, Int((Double($0) * dpr).rounded())) },
            height.map { max(1, Int((Double($0) * dpr).rounded())) }
        )
    }

    /// What the thumbnail of an upright photo of `sourceWidth` x `sourceHeight` shows and
    /// how large it is.
    ///
    /// Without `enlarge` nothing is ever enlarged, density included: a box the photo cannot
    /// fill at its own size shrinks, its shape kept (`cover`, `contain`, `fill`), so a
    /// `dpr=2` thumbnail of a small photo is the photo at most, in the box's proportions.
    /// - Parameter focus: the point `attention` found (fractions of the photo), for `cover`.
    public func geometry(
        sourceWidth: Int, sourceHeight: Int, enlarge: Bool, focus: (x: Double, y: Double)? = nil
    ) -> ThumbnailGeometry {
        let (sw, sh) = (Double(sourceWidth), Double(sourceHeight))
        let whole = ThumbnailGeometry.Box(x: 0, y: 0, width: sw, height: sh)
        let sides = pixelSides
        guard let boxWidth = sides.width, let boxHeight = sides.height else {
            let size = Self.insideSize(
                sourceWidth: sourceWidth, sourceHeight: sourceHeight, width: sides.width, height: sides.height,
                enlarge: enlarge)
            return ThumbnailGeometry(crop: whole, size: size, canvas: size, offset: (0, 0))
        }
        var (w, h) = (Double(boxWidth), Double(boxHeight))
        switch fit {
        case .inside:
            let size = Self.insideSize(
                sourceWidth: sourceWidth, sourceHeight: sourceHeight, width: boxWidth, height: boxHeight,
                enlarge: enlarge)
            return ThumbnailGeometry(crop: whole, size: size, canvas: size, offset: (0, 0))
        case .cover:
            let scale = Self.unenlarged(&w, &h, scale: max(w / sw, h / sh), enlarge: enlarge)
            let size = (width: Self.side(w), height: Self.side(h))
            let crop = (width: min(sw, Double(size.width) / scale), height: min(sh, Double(size.height) / scale))
            let (x, y) = Self.place(crop, in: (sw, sh), gravity: gravity, focus: focus)
            return ThumbnailGeometry(
                crop: .init(x: x, y: y, width: crop.width, height: crop.height), size: size, canvas: size,
                offset: (0, 0))
        case .contain:
            let scale = Self.unenlarged(&w, &h, scale: min(w / sw, h / sh), enlarge: enlarge)
            let canvas = (width: Self.side(w), height: Self.side(h))
            let size = (
                width: min(canvas.width, Self.side(sw * scale)), height: min(canvas.height, Self.side(sh * scale))
            )
            let room = (Double(canvas.width - size.width), Double(canvas.height - size.height))
            let anchor = gravity.anchor ?? (0.5, 0.5)
            let offset = (x: Int((room.0 * anchor.x).rounded()), y: Int((room.1 * anchor.y).rounded()))
            return ThumbnailGeometry(crop: whole, size: size, canvas: canvas, offset: offset)
        case .fill:
            _ = Self.unenlarged(&w, &h, scale: max(w / sw, h / sh), enlarge: enlarge)
            let size = (width: Self.side(w), height: Self.side(h))
            return ThumbnailGeometry(crop: whole, size: size, canvas: size, offset: (0, 0))
        }
    }

    /// The size of the photo within a box of one or two sides, never enlarged without
    /// `enlarge`. One side alone is the GD formula: the other is
    /// round(other x side / source side), at least 1 (`Thumbnailer.outputSize`).
    package static func insideSize(sourceWidth: Int, sourceHeight: Int, width: Int?, height: Int?, enlarge: Bool)
        -> (width: Int, height: Int)
    {
        switch (width, height) {
        case (let width?, nil):
            let target = enlarge ? width : min(width, sourceWidth)
            return (target, max(1, (2 * sourceHeight * target + sourceWidth) / (2 * sourceWidth)))
        case (nil, let height?):
            let target = enlarge ? height : min(height, sourceHeight)
            return (max(1, (2 * sourceWidth * target + sourceHeight) / (2 * sourceHeight)), target)
        case (let width?, let height?):
            var scale = min(Double(width) / Double(sourceWidth), Double(height) / Double(sourceHeight))
            if !enlarge { scale = min(scale, 1) }
            return (
                min(width, side(Double(sourceWidth) * scale)), min(height, side(Double(sourceHeight) * scale))
            )
        case (nil, nil):
            return (sourceWidth, sourceHeight)
        }
    }

    /// Where a crop of `crop` lies in a photo of `source` under `gravity`.
    private static func place(
        _ crop: (width: Double, height: Double), in source: (Double, Double), gravity: Gravity,
        focus: (x: Double, y: Double)?
    ) -> (Double, Double) {
        let room = (max(0, source.0 - crop.width), max(0, source.1 - crop.height))
        let point: (x: Double, y: Double)?
        switch gravity {
        case .focus(let x, let y): point = (x, y)
        case .attention: point = focus ?? (0.5, 0.5)
        default: point = nil
        }
        if let point {
            let x = min(room.0, max(0, point.x * source.0 - crop.width / 2))
            let y = min(room.1, max(0, point.y * source.1 - crop.height / 2))
            return (x, y)
        }
        let anchor = gravity.anchor ?? (0.5, 0.5)
        return (room.0 * anchor.x, room.1 * anchor.y)
    }

    /// The scale of a box of `w` x `h` whose photo needs `scale`: unchanged, or without
    /// `enlarge` and above 1, the box divided by it (its shape kept) and 1.
    private static func unenlarged(_ w: inout Double, _ h: inout Double, scale: Double, enlarge: Bool) -> Double {
        guard !enlarge && scale > 1 else { return scale }
        (w, h) = (w / scale, h / scale)
        return 1
    }

    /// A side in whole pixels, at least 1.
    private static func side(_ value: Double) -> Int { max(1, Int(value.rounded())) }
}
