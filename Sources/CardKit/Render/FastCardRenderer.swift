import FastPath
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The fast executor of a card plan: libjpeg-turbo, the SIMD kernels and libpng, in memory.
/// The same pictures as the general executor within what resampling and JPEG round-off
/// explain (the tests compare the two on the corpus); the geometry is the plan's.
///
/// Decode at the plan's DCT scale, turn upright, place (the plan's box resampled in one
/// Lanczos3 pass, or the enlarged crop, or the scaled photo turned by quarters), effect,
/// embed with bleed, frame blend, print JPEG with its dpi, sample and small image.
struct FastCardRenderer {
    let settings: CardRenderer.Settings

    /// The print pixels of the front (card size, bleed included), and the warning of a
    /// lenient decode.
    func print(_ plan: CardPlan, photo: some FastPhotoSource) throws -> (MemoryImage, warning: String?) {
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

    /// The three files of the front from its print pixels, at the plan's sizes (the print
    /// left empty for a press: its PDF is made from the pixels instead).
    func encode(_ print: MemoryImage, plan: CardPlan) throws -> RenderedSide {
        // Standard Huffman tables for the print: optimised ones cost 2.5 to 3 times the encode
        // time (+20 to +23 ms a card) for files 3 to 6 % smaller, and change no pixel
        // (benchmarks/RESULTS.md). The sample, which web pages load, keeps optimised tables.
        var printData: [UInt8] = []
        if let encoding = settings.printFile.encoding {
            printData = try JPEGCodec.encode(
                print, quality: encoding.quality, fullChroma: FastEncoder.fullChroma(encoding), optimize: false,
                dotsPerInch: encoding.keepResolution ? plan.dpi : 0)
        }
        let sample = PixelKernels.resize(print, width: plan.sampleSize.width, height: plan.sampleSize.height)
        return try encode(print: printData, sample: sample, plan: plan)
    }

    /// The side from its print file and sample: the sample and the small image (made from
    /// the sample, as on the general path: 4x less to read) encoded as the plan's outputs say.
    /// The sample alone, as `encode` makes it (a preview's bytes).
    func encodeSample(_ print: MemoryImage, plan: CardPlan) throws -> Data {
        let sample = PixelKernels.resize(print, width: plan.sampleSize.width, height: plan.sampleSize.height)
        guard let data = try FastEncoder.encode(sample, CardOutputs.sample) else {
            preconditionFailure("FastCardRenderer: the sample's encoding is libjpeg's")
        }
        return data
    }

    func encode(print: [UInt8], sample: MemoryImage, plan: CardPlan) throws -> RenderedSide {
        let small = PixelKernels.resize(sample, width: plan.smallSize.width, height: plan.smallSize.height)
        guard let sampleData = try FastEncoder.encode(sample, CardOutputs.sample),
            let smallData = try FastEncoder.encode(small, CardOutputs.small)
        else { preconditionFailure("FastCardRenderer: the sample and small encodings are libjpeg's and libpng's") }
        return RenderedSide(
            print: Data(print), sample: sampleData, small: smallData, printSize: plan.printSize,
            sampleSize: plan.sampleSize, smallSize: plan.smallSize)
    }

    /// The photo window: `plan.layout.window`'s size, the photo placed on `background`.
    /// Only the part of the photo the window shows is resampled: a photo dragged out of its
    /// window or enlarged twentyfold costs what the window costs.
    private func place(_ plan: CardPlan, photo: some FastPhotoSource, background: [UInt8]) throws
        -> (MemoryImage, warning: String?)
    {
        let (width, height) = (plan.layout.window.width, plan.layout.window.height)
        let shrink = plan.dctShrink
        let decoded = photo.uprightSize(shrink: shrink)
        let policy = settings.policy
        switch plan.source {
        case .background:
            return (MemoryImage(width: width, height: height, colour: background), nil)
        case .region(let region, let size, let quarters, let x, let y):
            // The plan's box in the scaled photo, mapped to the decoded pixels.
            var box = plan.box(
                left: region.left, top: region.top, width: region.width, height: region.height, decoded: decoded)
            // Only the rows the box reads are decoded: the box and the reducing filter's
            // reach beyond it (3 lobes, widened by the reduction factor), plus a margin.
            let reach = Int((3 * max(1, box.height / Double(size.height))).rounded(.up)) + 2
            let first = max(0, min(decoded.height - 1, Int(box.y.rounded(.down)) - reach))
            let end = max(first + 1, min(decoded.height, Int((box.y + box.height).rounded(.up)) + reach))
            let (band, bandTop, warning) = try photo.decodeUpright(shrink: shrink, rows: first..<end, policy: policy)
            box.y -= Double(bandTop)
            var placed = PixelKernels.resample(band, box: box, width: size.width, height: size.height)
            photo.transformAfterResampling?.apply(to: &placed)
            if quarters != 0 { placed = PixelKernels.oriented(placed, [1, 6, 3, 8][quarters]) }
            guard x != 0 || y != 0 || placed.width != width || placed.height != height else { return (placed, warning) }
            return (MemoryImage(width: width, height: height, colour: background).pasting(placed, x: x, y: y), warning)
        case .enlargedCrop(let x, let y, let cropWidth, let cropHeight):
            // Cut out first and enlarged alone, its edges repeated, as the general executor
            // does (resampling it inside the photo would read the pixels around the crop).
            let (band, bandTop, warning) = try photo.decodeUpright(
                shrink: 1, rows: y..<(y + cropHeight), policy: policy)
            var region = band.cropped(x: x, y: y - bandTop, width: cropWidth, height: cropHeight)
            photo.transformAfterResampling?.apply(to: &region)
            return (PixelKernels.resize(region, width: width, height: height), warning)
        case .rotated:
            // `Executor.choose` gives other angles to libvips.
            throw CardRenderFailure(
                stage: .placing, file: photo.photo.name, detail: "the fast executor turns by quarters only")
        }
    }
}
