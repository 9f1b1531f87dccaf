import FastPath
import Glibc
import ImageCore
import PhotoSources

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The fast executor of a card plan: libjpeg-turbo or libheif, the SIMD kernels and libpng,
/// in memory. The same pictures as the general executor within what resampling and JPEG
/// round-off explain (the tests compare the two on the corpus); the geometry is the plan's.
///
/// Decode the plan's level (`DecodeLevel`), turn upright, place (the plan's box resampled in
/// one Lanczos3 pass, then turned by quarters or, at any other angle, by a bilinear turn;
/// or the enlarged crop), effect, embed with bleed, frame blend, and encode: the print JPEG
/// with its dpi for a print plan, the sample and small image for a sample plan.
struct FastCardRenderer {
    let settings: CardSettings

    /// The plan's pixels (its card, bleed included: the print's, or the sample's for a sample
    /// plan), and the warning of a lenient decode.
    func pixels(_ plan: CardPlan, photo: some FastPhotoSource) throws -> (MemoryImage, warning: String?) {
        let colour = plan.background.map { UInt8(max(0, min(255, $0.rounded()))) }
        let (window, warning) = try place(plan, photo: photo, background: colour)
        var placed = window
        if let parameters = plan.effect.parameters {
            PixelKernels.colour(
                &placed, matrix: parameters.matrix.flatMap { $0 }, contrast: parameters.contrast, lift: parameters.lift,
                vignette: parameters.vignette)
        }
        var card = MemoryImage(width: plan.printSize.width, height: plan.printSize.height, colour: colour)
            .pasting(placed, x: plan.layout.window.x, y: plan.layout.window.y)
        if let art = plan.art {
            let paint = MemoryImage(width: art.width, height: art.height, pixels: art.colourPixels)
            PixelKernels.blend(&card, colour: paint, alpha: art.alphaPixels)
        }
        return (card, warning)
    }

    /// The print file from a print plan's pixels (empty for a press: its PDF is made from the
    /// pixels instead).
    func encodePrint(_ print: MemoryImage, plan: CardPlan) throws -> [UInt8] {
        // Standard Huffman tables for the print: optimised ones cost 2.5 to 3 times the encode
        // time (+20 to +23 ms a card) for files 3 to 6 % smaller, and change no pixel
        // (benchmarks/RESULTS.md). The sample, which web pages load, keeps optimised tables.
        guard let encoding = settings.printFile.encoding else { return [] }
        return try JPEGCodec.encode(
            print, quality: encoding.quality, fullChroma: FastEncoder.fullChroma(encoding), optimize: false,
            dotsPerInch: encoding.keepResolution ? plan.dpi : 0)
    }

    /// A sample plan's files from its pixels: the sample, and the small image made from it
    /// (as on the general path) unless `small` is false (a preview).
    func encodeSample(_ sample: MemoryImage, plan: CardPlan, small: Bool) throws -> (sample: Data, small: Data) {
        guard let sampleData = try FastEncoder.encode(sample, CardOutputs.sample) else {
            preconditionFailure("FastCardRenderer: the sample's encoding is libjpeg's")
        }
        guard small else { return (sampleData, Data()) }
        let reduced = PixelKernels.resize(sample, width: plan.smallSize.width, height: plan.smallSize.height)
        guard let smallData = try FastEncoder.encode(reduced, CardOutputs.small) else {
            preconditionFailure("FastCardRenderer: the small image's encoding is libpng's")
        }
        return (sampleData, smallData)
    }

    /// The rows of the plan's level (`DecodeLevel`) its window reads (nil: none, or the
    /// enlarged crop's, which reads the photo itself): the box and the reducing filter's
    /// reach beyond it (3 lobes, widened by the reduction factor), plus a margin.
    func rowsRead(_ plan: CardPlan, levelSize: (width: Int, height: Int)) -> Range<Int>? {
        let region: PixelRect
        let height: Int
        switch plan.source {
        case .background, .enlargedCrop: return nil
        case .region(let box, let size, _, _, _):
            (region, height) = (box, size.height)
        case .rotated(let box, _, _, _, _):
            (region, height) = (box, box.height)
        }
        let box = plan.box(
            left: region.left, top: region.top, width: region.width, height: region.height, decoded: levelSize)
        let reach = Int((3 * max(1, box.height / Double(height))).rounded(.up)) + 2
        let first = max(0, min(levelSize.height - 1, Int(box.y.rounded(.down)) - reach))
        let end = max(first + 1, min(levelSize.height, Int((box.y + box.height).rounded(.up)) + reach))
        return first..<end
    }

    /// The photo window: `plan.layout.window`'s size, the photo placed on `background`.
    /// Only the part of the photo the window shows is resampled: a photo dragged out of its
    /// window or enlarged twentyfold costs what the window costs.
    private func place(_ plan: CardPlan, photo: some FastPhotoSource, background: [UInt8]) throws
        -> (MemoryImage, warning: String?)
    {
        let (width, height) = (plan.layout.window.width, plan.layout.window.height)
        let levelSize = photo.levelSize(plan.level)
        let policy = settings.policy
        /// `region` of the scaled photo, resampled from the rows of the level that hold it,
        /// in sRGB.
        func resampled(_ region: PixelRect, width: Int, height: Int) throws -> (MemoryImage, warning: String?) {
            var box = plan.box(
                left: region.left, top: region.top, width: region.width, height: region.height, decoded: levelSize)
            let (band, bandTop, warning) = try photo.decodeLevel(
                plan.level, rows: rowsRead(plan, levelSize: levelSize), policy: policy)
            box.y -= Double(bandTop)
            var placed = PixelKernels.resample(band, box: box, width: width, height: height)
            photo.transformAfterResampling?.apply(to: &placed)
            return (placed, warning)
        }
        switch plan.source {
        case .background:
            return (MemoryImage(width: width, height: height, colour: background), nil)
        case .region(let region, let size, let quarters, let x, let y):
            var (placed, warning) = try resampled(region, width: size.width, height: size.height)
            if quarters != 0 { placed = PixelKernels.oriented(placed, [1, 6, 3, 8][quarters]) }
            guard x != 0 || y != 0 || placed.width != width || placed.height != height else { return (placed, warning) }
            return (MemoryImage(width: width, height: height, colour: background).pasting(placed, x: x, y: y), warning)
        case .enlargedCrop(let x, let y, let cropWidth, let cropHeight):
            // Cut out first and enlarged alone, its edges repeated, as the general executor
            // does (resampling it inside the photo would read the pixels around the crop).
            let (band, bandTop, warning) = try photo.decodeLevel(
                DecodeLevel(shrink: 1, halvings: 0), rows: y..<(y + cropHeight), policy: policy)
            var region = band.cropped(x: x, y: y - bandTop, width: cropWidth, height: cropHeight)
            photo.transformAfterResampling?.apply(to: &region)
            return (PixelKernels.resize(region, width: width, height: height), warning)
        case .rotated(let region, let rotation, let centreX, let centreY, let visible):
            // The box at the window's scale (one Lanczos3 pass, as the general executor's
            // resize), then turned: window = R (scaled photo - its centre) + centre, R the
            // turn clockwise; each window pixel reads the box bilinearly at R^-1 (window -
            // centre) + the photo's centre, in the box's pixel indices (centres at whole
            // coordinates, as libvips's affine, whose bilinear turn the general executor uses).
            let (scaled, warning) = try resampled(region, width: region.width, height: region.height)
            let radians = rotation * .pi / 180
            let (cosine, sine) = (cos(radians), sin(radians))
            let (dx, dy) = (Double(visible.left) + 0.5 - centreX, Double(visible.top) + 0.5 - centreY)
            let (photoX, photoY) = (
                Double(plan.scaledPhoto.width) / 2 - Double(region.left) - 0.5,
                Double(plan.scaledPhoto.height) / 2 - Double(region.top) - 0.5
            )
            let turned = PixelKernels.turned(
                scaled, width: visible.width, height: visible.height,
                inverse: (
                    a: cosine, b: sine, c: cosine * dx + sine * dy + photoX,
                    d: -sine, e: cosine, f: -sine * dx + cosine * dy + photoY
                ), background: background)
            return (
                MemoryImage(width: width, height: height, colour: background)
                    .pasting(turned, x: visible.left, y: visible.top), warning
            )
        }
    }
}
