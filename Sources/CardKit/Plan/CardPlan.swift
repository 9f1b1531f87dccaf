import Glibc
import ImageCore
import PhotoSources
import VipsKit

/// A card front resolved once, from the spec, the photo's header (read once), the frame and
/// the settings: where the window's pixels come from in the photo, the sizes of the print,
/// sample and small image, the effect, the art, the encodes, and which executor runs it.
/// Both executors (`FastCardRenderer`, and `PhotoPlacer` with `CardRenderer`'s libvips
/// pipeline) run the plan; neither computes geometry of its own.
struct CardPlan {
    /// Where the photo window's pixels come from. Every source is bounded by the window:
    /// no executor makes more of the photo than the part the window shows (a photo pushed
    /// out of its window, or enlarged twentyfold, costs what its window costs).
    enum Source: Equatable {
        /// No part of the photo reaches the window (dragged wholly out): the background.
        case background
        /// `box` of the scaled photo (`scaledPhoto`'s pixels, whole) resampled to `size`,
        /// turned `quarters` quarter turns clockwise, at (`x`, `y`) in the window; the rest of
        /// the window is background. A reduced crop is the box (snapped outwards) filling the
        /// window; a transform turned by quarters is the part of the photo the window shows.
        case region(box: PixelRect, size: Size, quarters: Int, x: Int, y: Int)
        /// Enlarging a crop: the crop in the upright photo's pixels, cut out first and
        /// enlarged alone (its edges repeated).
        case enlargedCrop(x: Int, y: Int, width: Int, height: Int)
        /// Any other angle: `box` of the scaled photo turned
        /// `rotation` degrees clockwise about the scaled photo's centre, which lands at
        /// (`centreX`, `centreY`) in the window (fractions kept); the window's `visible` box
        /// is drawn, the rest is background.
        case rotated(box: PixelRect, rotation: Double, centreX: Double, centreY: Double, visible: PixelRect)
    }

    /// The card's geometry (trim, bleed, window, photo scale).
    let layout: CardLayout
    /// The upright photo's size times `layout.photoScale`, rounded (at least 1 x 1); for a
    /// reduced crop, scaled across and down to fit the crop to the window exactly.
    let scaledPhoto: Size
    /// Where the window's pixels come from.
    let source: Source
    /// The effect on the window, the background around the photo, the frame art over the card.
    let effect: ColourEffect
    let background: [Double]
    let art: FrameOverlay?
    /// The print's dots per inch.
    let dpi: Int
    /// The three files: sizes and encodings.
    let outputs: CardOutputs
    /// The print's size (the card, bleed included), the sample's and the small image's.
    var printSize: Size { outputs.printSize }
    var sampleSize: Size { outputs.sampleSize }
    var smallSize: Size { outputs.smallSize }
    /// Who runs it.
    let executor: Executor
    /// What the fast executor decodes: the print's level is the photo at 1/`shrink` (the
    /// smallest DCT scale of 1, 2, 4, 8 still at least `scaledPhoto`; 1 for an HEIF photo,
    /// which HEVC has no DCT scale for, and for the general executor, which shrinks on load
    /// itself), not halved; the sample's is the same decode halved while it covers the
    /// sample's `scaledPhoto` (`DecodeLevel`).
    let level: DecodeLevel
    /// The fast executor's DCT scale (`level.shrink`).
    var dctShrink: Int { level.shrink }
    /// Whether this plan draws the card's sample (`init(sampleOf:art:)`) rather than its print.
    let isSample: Bool

    /// The plan of the card's print file.
    /// - Throws: what `CardLayout` throws for a crop of the wrong shape or outside the photo.
    init(
        spec: CardSpec, photo: ImageData, header: ImageHeader, frame: FrameDesign?, effect: ColourEffect,
        art: (CardLayout) throws -> FrameOverlay?, settings: CardSettings, specFile: String
    ) throws {
        let layout = try CardLayout(spec: spec, frame: frame, photo: header, specFile: specFile)
        let executor = Executor.choose(
            photo: photo, header: header, engine: settings.engine,
            outputIsJPEG: settings.printFile.isWrittenByLibjpeg, allowsHEIF: true)
        try self.init(
            layout: layout, background: spec.background, dpi: spec.format.dpi, effect: effect, art: art,
            outputs: CardOutputs(printSize: layout.card, settings: settings), executor: executor, print: nil)
    }

    /// The plan of `print`'s sample: the same card drawn at the sample's size from the photo
    /// (its layout scaled, the frame's art rasterised at that size), reading the same decode
    /// as the print, halved while it covers the sample (`DecodeLevel`). Its outputs are the
    /// sample (its "print" pixels, encoded as the sample) and the small image.
    /// - Throws: what `art` throws.
    init(sampleOf print: CardPlan, art: (CardLayout) throws -> FrameOverlay?) throws {
        try self.init(
            layout: print.layout.scaled(to: print.sampleSize), background: print.background, dpi: print.dpi,
            effect: print.effect, art: art, outputs: print.outputs.ofSample, executor: print.executor, print: print)
    }

    private init(
        layout: CardLayout, background: [Double], dpi: Int, effect: ColourEffect,
        art: (CardLayout) throws -> FrameOverlay?, outputs: CardOutputs, executor: Executor, print: CardPlan?
    ) throws {
        self.layout = layout
        let scale = layout.photoScale
        let uniform =
            scale == 1
            ? layout.photo
            : Size(width: Self.scaled(layout.photo.width, scale), height: Self.scaled(layout.photo.height, scale))
        switch layout.placement {
        case .crop(let x, let y, let width, let height) where scale < 1:
            (scaledPhoto, source) = Self.reducedCrop(
                x: x, y: y, width: width, height: height, photo: layout.photo, window: layout.window)
        case .crop(let x, let y, let width, let height):
            scaledPhoto = uniform
            source = .enlargedCrop(x: x, y: y, width: width, height: height)
        case .transform(_, let rotation, let offsetX, let offsetY):
            scaledPhoto = uniform
            let (width, height) = (Double(layout.window.width), Double(layout.window.height))
            let centre = (x: width / 2 + offsetX * width, y: height / 2 + offsetY * height)
            let window = PixelRect(left: 0, top: 0, right: layout.window.width, bottom: layout.window.height)
            let turn = rotation.truncatingRemainder(dividingBy: 360)
            if turn.truncatingRemainder(dividingBy: 90) == 0 {
                let quarters = ((Int((turn / 90).rounded()) % 4) + 4) % 4
                source = Self.quarterTurned(uniform, quarters: quarters, centre: centre, window: window)
            } else {
                source = Self.rotated(uniform, degrees: rotation, centre: centre, window: window)
            }
        case .automatic:
            preconditionFailure("CardPlan: a layout's placement is never .automatic")
        }
        self.effect = effect
        self.background = background
        self.art = try art(layout)
        self.dpi = dpi
        self.outputs = outputs
        self.executor = executor
        isSample = print != nil
        if let print {
            // The print's decode, halved while it covers this plan's scaled photo.
            let decoded: (width: Int, height: Int)
            switch executor {
            case .fast(let jpeg): decoded = jpeg.uprightSize(shrink: print.level.shrink)
            case .fastHEIF(let heif): decoded = heif.uprightSize(shrink: 1)
            case .general: decoded = (layout.photo.width, layout.photo.height)
            }
            let halvings =
                executor.path == .fast && scale < 1 ? DecodeLevel.halvings(of: decoded, atLeast: scaledPhoto) : 0
            level = DecodeLevel(shrink: print.level.shrink, halvings: halvings)
        } else if case .fast(let jpeg) = executor, scale < 1 {
            level = DecodeLevel(shrink: jpeg.shrink(atLeast: (scaledPhoto.width, scaledPhoto.height)), halvings: 0)
        } else {
            level = DecodeLevel(shrink: 1, halvings: 0)
        }
    }

    /// A reduced crop: the photo scaled to exactly the window across and down (the two
    /// scales differ by 2 % at most), so that the crop's box is window-sized and each
    /// executor resamples once, on the same pixel grid (a box snapped outwards and resized
    /// again made libvips's picture 1.6 of 255 away from the fast executor's).
    static func reducedCrop(
        x: Int, y: Int, width: Int, height: Int, photo: Size, window: (x: Int, y: Int, width: Int, height: Int)
    ) -> (Size, Source) {
        let (fx, fy) = (Double(window.width) / Double(width), Double(window.height) / Double(height))
        let scaled = Size(
            width: max(window.width, Self.scaled(photo.width, fx)),
            height: max(window.height, Self.scaled(photo.height, fy)))
        let left = min(scaled.width - window.width, Int((Double(x) * fx).rounded()))
        let top = min(scaled.height - window.height, Int((Double(y) * fy).rounded()))
        let box = PixelRect(left: left, top: top, right: left + window.width, bottom: top + window.height)
        return (
            scaled, .region(box: box, size: Size(width: window.width, height: window.height), quarters: 0, x: 0, y: 0)
        )
    }

    /// The part of the scaled photo a window shows when the photo, turned `quarters` quarter
    /// turns clockwise, is centred at `centre` (rounded to whole pixels, so that no pixel is
    /// interpolated): the box of `scaled` it needs and where that lands, or the background
    /// alone when nothing of it reaches the window.
    static func quarterTurned(
        _ scaled: Size, quarters: Int, centre: (x: Double, y: Double), window: PixelRect
    ) -> Source {
        let (width, height) = (scaled.width, scaled.height)
        let turned = quarters % 2 == 1 ? Size(width: height, height: width) : scaled
        let x = Int((centre.x - Double(turned.width) / 2).rounded())
        let y = Int((centre.y - Double(turned.height) / 2).rounded())
        let placed = PixelRect(left: x, top: y, right: x + turned.width, bottom: y + turned.height)
        let visible = placed.intersection(window)
        guard !visible.isEmpty else { return .background }
        // The visible part in the turned photo's pixels, then turned back into the scaled
        // photo's: a quarter turn clockwise takes pixel (x, y) to (height - 1 - y, x).
        let shown = visible.offset(x: -x, y: -y)
        let box: PixelRect
        switch quarters {
        case 0:
            box = shown
        case 1:
            box = PixelRect(
                left: shown.top, top: height - shown.right, right: shown.bottom, bottom: height - shown.left)
        case 2:
            box = PixelRect(
                left: width - shown.right, top: height - shown.bottom, right: width - shown.left,
                bottom: height - shown.top)
        default:
            box = PixelRect(left: width - shown.bottom, top: shown.left, right: width - shown.top, bottom: shown.right)
        }
        return .region(
            box: box, size: Size(width: box.width, height: box.height), quarters: quarters, x: visible.left,
            y: visible.top)
    }

    /// The part of the scaled photo a window shows when the photo is turned `degrees`
    /// clockwise about its centre and that centre lands at `centre`: the window's box the
    /// turned photo covers and the box of `scaled` that covers it (two pixels wider on each
    /// side, for the interpolation), or the background alone.
    static func rotated(_ scaled: Size, degrees: Double, centre: (x: Double, y: Double), window: PixelRect) -> Source {
        let radians = degrees * .pi / 180
        let (cosine, sine) = (cos(radians), sin(radians))
        let (halfWidth, halfHeight) = (Double(scaled.width) / 2, Double(scaled.height) / 2)
        // Clockwise on a picture whose y axis points down.
        let corners = [
            (-halfWidth, -halfHeight), (halfWidth, -halfHeight), (-halfWidth, halfHeight), (halfWidth, halfHeight),
        ]
        .map { (x: $0.0 * cosine - $0.1 * sine + centre.x, y: $0.0 * sine + $0.1 * cosine + centre.y) }
        let visible = PixelRect.enclosing(corners).intersection(window)
        guard !visible.isEmpty else { return .background }
        let back = [
            (Double(visible.left), Double(visible.top)), (Double(visible.right), Double(visible.top)),
            (Double(visible.left), Double(visible.bottom)), (Double(visible.right), Double(visible.bottom)),
        ].map { point -> (x: Double, y: Double) in
            let (x, y) = (point.0 - centre.x, point.1 - centre.y)
            return (x: x * cosine + y * sine + halfWidth, y: -x * sine + y * cosine + halfHeight)
        }
        let box = PixelRect.enclosing(back, margin: 2).intersection(
            PixelRect(left: 0, top: 0, right: scaled.width, bottom: scaled.height))
        guard !box.isEmpty else { return .background }
        return .rotated(box: box, rotation: degrees, centreX: centre.x, centreY: centre.y, visible: visible)
    }

    /// A box in `scaledPhoto`'s pixels mapped to a photo decoded at `decoded` size (the fast
    /// executor's DCT-scaled pixels), fractions kept.
    func box(
        left: Int, top: Int, width: Int, height: Int, decoded: (width: Int, height: Int)
    ) -> (x: Double, y: Double, width: Double, height: Double) {
        let sx = Double(decoded.width) / Double(scaledPhoto.width)
        let sy = Double(decoded.height) / Double(scaledPhoto.height)
        return (Double(left) * sx, Double(top) * sy, Double(width) * sx, Double(height) * sy)
    }

    /// `size` times `scale`, rounded, at least 1 (libvips's `resize` output size).
    static func scaled(_ size: Int, _ scale: Double) -> Int {
        max(1, Int((Double(size) * scale).rounded()))
    }
}
