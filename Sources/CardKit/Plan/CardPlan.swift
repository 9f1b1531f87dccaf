import VipsKit

/// A card front resolved once, from the spec, the photo's header (read once), the frame and
/// the settings: where the window's pixels come from in the photo, the sizes of the print,
/// sample and small image, the effect, the art, the encodes, and which executor runs it.
/// Both executors (`FastCardRenderer`, and `PhotoPlacer` with `CardRenderer`'s libvips
/// pipeline) run the plan; neither computes geometry of its own.
struct CardPlan {
    /// Where the photo window's pixels come from.
    enum Source: Equatable {
        /// Reducing a crop: the box in the photo scaled by `layout.photoScale` (`scaledPhoto`'s
        /// pixels; the crop snapped outwards to whole pixels), resampled to the window.
        case box(left: Int, top: Int, right: Int, bottom: Int)
        /// Enlarging a crop: the crop in the upright photo's pixels, cut out first and
        /// enlarged alone (its edges repeated).
        case enlargedCrop(x: Int, y: Int, width: Int, height: Int)
        /// The whole photo scaled to `scaledPhoto`, turned `rotation` degrees and placed at
        /// `origin(of:)` on the window's background.
        case turned(rotation: Double, offsetX: Double, offsetY: Double)
    }

    /// The card's geometry (trim, bleed, window, photo scale).
    let layout: CardLayout
    /// The upright photo's size times `layout.photoScale`, rounded (at least 1 x 1).
    let scaledPhoto: Size
    /// Where the window's pixels come from.
    let source: Source
    /// The effect on the window, the background around the photo, the frame art over the card.
    let effect: ColourEffect
    let background: [Double]
    let art: FrameOverlay?
    /// The print's dots per inch.
    let dpi: Int
    /// The print's size (the card, bleed included), the sample's and the small image's.
    let printSize: Size
    let sampleSize: Size
    let smallSize: Size
    /// Who runs it.
    let executor: Executor
    /// The fast executor's DCT scale: the photo is decoded at 1/`dctShrink` (the smallest
    /// of 1, 2, 4, 8 still at least `scaledPhoto`); 1 for an HEIF photo (HEVC has no DCT
    /// scale) and for the general executor, which shrinks on load itself.
    let dctShrink: Int

    /// - Throws: what `CardLayout` throws for a crop of the wrong shape or outside the photo.
    init(
        spec: CardSpec, photo: ImageData, header: ImageHeader, frame: FrameDesign?, effect: ColourEffect,
        art: (CardLayout) throws -> FrameOverlay?, settings: CardRenderer.Settings, specFile: String
    ) throws {
        let layout = try CardLayout(spec: spec, frame: frame, photo: header, specFile: specFile)
        self.layout = layout
        let scale = layout.photoScale
        scaledPhoto =
            scale == 1
            ? layout.photo
            : Size(width: Self.scaled(layout.photo.width, scale), height: Self.scaled(layout.photo.height, scale))
        switch layout.placement {
        case .crop(let x, let y, let width, let height) where scale < 1:
            let fx = Double(scaledPhoto.width) / Double(layout.photo.width)
            let fy = Double(scaledPhoto.height) / Double(layout.photo.height)
            source = .box(
                left: Int((Double(x) * fx).rounded(.down)), top: Int((Double(y) * fy).rounded(.down)),
                right: min(scaledPhoto.width, Int((Double(x + width) * fx).rounded(.up))),
                bottom: min(scaledPhoto.height, Int((Double(y + height) * fy).rounded(.up))))
        case .crop(let x, let y, let width, let height):
            source = .enlargedCrop(x: x, y: y, width: width, height: height)
        case .transform(_, let rotation, let offsetX, let offsetY):
            source = .turned(rotation: rotation, offsetX: offsetX, offsetY: offsetY)
        }
        self.effect = effect
        background = spec.background
        self.art = try art(layout)
        dpi = spec.format.dpi
        printSize = layout.card
        let sampleScale = Double(settings.sampleLongSide) / Double(max(printSize.width, printSize.height))
        sampleSize = Size(
            width: Self.scaled(printSize.width, sampleScale), height: Self.scaled(printSize.height, sampleScale))
        let small = Thumbnailer.outputSize(
            sourceWidth: printSize.width, sourceHeight: printSize.height, width: settings.smallWidth, enlarge: false)
        smallSize = Size(width: small.width, height: small.height)
        var rotation = 0.0
        if case .turned(let degrees, _, _) = source { rotation = degrees }
        executor = Executor.choose(
            photo: photo, header: header, engine: settings.engine, rotation: rotation,
            outputIsJPEG: settings.printFile.isWrittenByLibjpeg, allowsHEIF: true)
        if case .fast(let jpeg) = executor, scale < 1 {
            dctShrink = jpeg.shrink(atLeast: (scaledPhoto.width, scaledPhoto.height))
        } else {
            dctShrink = 1
        }
    }

    /// Where a placed (scaled, turned) photo of `size` goes in the window: centred, moved by
    /// the offsets (fractions of the window), rounded.
    func origin(of size: Size) -> (x: Int, y: Int) {
        guard case .turned(_, let offsetX, let offsetY) = source else { return (0, 0) }
        let (width, height) = (Double(layout.window.width), Double(layout.window.height))
        return (
            Int((width / 2 + offsetX * width - Double(size.width) / 2).rounded()),
            Int((height / 2 + offsetY * height - Double(size.height) / 2).rounded())
        )
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
