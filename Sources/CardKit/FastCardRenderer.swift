import FastPath
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The photo side of a card in memory with libjpeg-turbo and the SIMD kernels, for the
/// photos that allow it (`plan`); the same pictures as the libvips path, within what
/// resampling and JPEG round-off explain (the tests compare the two on the corpus).
///
/// The steps mirror `PhotoPlacer` and `CardRenderer`: decode at the DCT scale still above
/// the placement's size, turn upright, place (a crop box or the covering scale resampled
/// in one Lanczos3 pass, quarter turns exact), effect, embed with bleed, frame blend,
/// print JPEG with its dpi, sample and small image from the print pixels.
struct FastCardRenderer {
    let settings: CardRenderer.Settings

    /// The photo as a fast-path source when this card can take the fast path, nil otherwise.
    static func plan(photo: ImageData, header: ImageHeader, spec: CardSpec, settings: CardRenderer.Settings)
        -> FastJPEGSource?
    {
        guard settings.engine == .auto, settings.printEncoding.format == .jpeg else { return nil }
        if case .transform(_, let rotation, _, _) = spec.placement,
            rotation.truncatingRemainder(dividingBy: 90) != 0
        {
            return nil
        }
        return FastJPEGSource(photo, header: header)
    }

    /// The print pixels of the front (card size, bleed included), and the warning of a
    /// lenient decode.
    func print(
        photo: FastJPEGSource, layout: CardLayout, effect: ColourEffect, art: FrameOverlay?,
        background: [Double]
    ) throws -> (MemoryImage, warning: String?) {
        let colour = background.map { UInt8(max(0, min(255, $0.rounded()))) }
        let (window, warning) = try place(photo, layout: layout, background: colour)
        var placed = window
        if let parameters = effect.parameters {
            PixelKernels.colour(
                &placed, matrix: parameters.matrix.flatMap { $0 }, contrast: parameters.contrast, lift: parameters.lift,
                vignette: parameters.vignette)
        }
        var card = MemoryImage(width: layout.card.width, height: layout.card.height, colour: colour)
            .pasting(placed, x: layout.window.x, y: layout.window.y)
        if let art {
            let paint = MemoryImage(width: art.width, height: art.height, pixels: art.colourPixels)
            PixelKernels.blend(&card, colour: paint, alpha: art.alphaPixels)
        }
        return (card, warning)
    }

    /// The three files of the front from its print pixels.
    func encode(_ print: MemoryImage, dpi: Int) throws -> RenderedSide {
        let encoding = settings.printEncoding
        let fullChroma = FastEncoder.fullChroma(encoding)
        // Standard Huffman tables for the print: optimised ones cost 2.5 to 3 times the encode
        // time (+20 to +23 ms a card) for files 3 to 6 % smaller, and change no pixel
        // (benchmarks/RESULTS.md). The sample, which web pages load, keeps optimised tables.
        let printData = try JPEGCodec.encode(
            print, quality: encoding.quality, fullChroma: fullChroma, optimize: false,
            dotsPerInch: encoding.keepResolution ? dpi : 0)
        let longSide = max(print.width, print.height)
        let sampleScale = Double(settings.sampleLongSide) / Double(longSide)
        let sample = PixelKernels.resize(
            print, width: Self.scaled(print.width, sampleScale), height: Self.scaled(print.height, sampleScale))
        let sampleData = try JPEGCodec.encode(sample, quality: 85, fullChroma: false, optimize: true)
        // The small image comes from the sample, as on the general path (4x less to read).
        let smallSize = Thumbnailer.outputSize(
            sourceWidth: print.width, sourceHeight: print.height, width: settings.smallWidth, enlarge: false)
        let small = PixelKernels.resize(sample, width: smallSize.width, height: smallSize.height)
        let smallData = Data(try PNGCodec.encode(small))
        return RenderedSide(
            print: Data(printData), sample: Data(sampleData), small: smallData,
            printSize: Size(width: print.width, height: print.height),
            sampleSize: Size(width: sample.width, height: sample.height),
            smallSize: Size(width: small.width, height: small.height))
    }

    /// `size` times `scale`, rounded, at least 1 (libvips's `resize` output size).
    static func scaled(_ size: Int, _ scale: Double) -> Int {
        max(1, Int((Double(size) * scale).rounded()))
    }

    /// The photo window: `layout.window`'s size, the photo placed on `background`.
    private func place(_ photo: FastJPEGSource, layout: CardLayout, background: [UInt8]) throws
        -> (MemoryImage, warning: String?)
    {
        let (width, height) = (layout.window.width, layout.window.height)
        let scale = layout.photoScale
        let info = photo.info
        // The size the whole upright photo is brought to (the general path's `scaledPhoto`).
        let target = (width: Self.scaled(info.uprightWidth, scale), height: Self.scaled(info.uprightHeight, scale))
        let shrink = scale < 1 ? photo.shrink(atLeast: target) : 1
        let decoded = photo.uprightSize(shrink: shrink)
        let policy = settings.policy
        switch layout.placement {
        case .crop(let x, let y, let cropWidth, let cropHeight):
            if scale < 1 {
                // The same source box the general path cuts: in the scaled photo, snapped
                // outwards to whole pixels, then mapped to the decoded pixels.
                let fx = Double(target.width) / Double(info.uprightWidth)
                let fy = Double(target.height) / Double(info.uprightHeight)
                let left = (Double(x) * fx).rounded(.down)
                let top = (Double(y) * fy).rounded(.down)
                let right = min(Double(target.width), (Double(x + cropWidth) * fx).rounded(.up))
                let bottom = min(Double(target.height), (Double(y + cropHeight) * fy).rounded(.up))
                let (sx, sy) = (
                    Double(decoded.width) / Double(target.width), Double(decoded.height) / Double(target.height)
                )
                var box = (x: left * sx, y: top * sy, width: (right - left) * sx, height: (bottom - top) * sy)
                // Only the rows the box reads are decoded: the box and the reducing filter's
                // reach beyond it (3 lobes, widened by the reduction factor), plus a margin.
                let reach = Int((3 * max(1, box.height / Double(height))).rounded(.up)) + 2
                let rows =
                    max(
                        0, Int(box.y.rounded(.down)) - reach)..<min(
                        decoded.height, Int((box.y + box.height).rounded(.up)) + reach)
                let (band, bandTop, warning) = try photo.decodeUpright(shrink: shrink, rows: rows, policy: policy)
                box.y -= Double(bandTop)
                return (PixelKernels.resample(band, box: box, width: width, height: height), warning)
            }
            // Enlarging: the crop is cut out first and enlarged alone, its edges repeated, as
            // the general path does (resampling it inside the photo would read the pixels
            // around the crop and differ along the window's edges).
            let (band, bandTop, warning) = try photo.decodeUpright(
                shrink: 1, rows: y..<(y + cropHeight), policy: policy)
            let region = band.cropped(x: x, y: y - bandTop, width: cropWidth, height: cropHeight)
            return (PixelKernels.resize(region, width: width, height: height), warning)
        case .transform(_, let rotation, let offsetX, let offsetY):
            let (upright, _, warning) = try photo.decodeUpright(shrink: shrink, policy: policy)
            var scaled =
                scale == 1 && upright.width == target.width
                ? upright : PixelKernels.resize(upright, width: target.width, height: target.height)
            let quarters = ((Int((rotation / 90).rounded()) % 4) + 4) % 4
            if quarters != 0 { scaled = PixelKernels.oriented(scaled, [1, 6, 3, 8][quarters]) }
            let left = (Double(width) / 2 + offsetX * Double(width) - Double(scaled.width) / 2).rounded()
            let top = (Double(height) / 2 + offsetY * Double(height) - Double(scaled.height) / 2).rounded()
            let window = MemoryImage(width: width, height: height, colour: background)
                .pasting(scaled, x: Int(left), y: Int(top))
            return (window, warning)
        }
    }
}
