import FastPath
import ImageCore
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FastCardRenderer {
    /// The card's window as a box in the decoded photo, when the plan can be streamed: a
    /// photo stored upright (orientation 1: its rows are the card's rows) and a window that
    /// one unturned box of it fills (a reduced crop, or a cover without a turn whose photo
    /// covers the whole window). nil otherwise.
    func streamableBox(_ plan: CardPlan, photo: FastJPEGSource) -> (
        x: Double, y: Double, width: Double, height: Double
    )? {
        guard photo.info.orientation == 1,
            case .region(let box, let size, 0, 0, 0) = plan.source,
            size.width == plan.layout.window.width, size.height == plan.layout.window.height
        else { return nil }
        return plan.box(
            left: box.left, top: box.top, width: box.width, height: box.height,
            decoded: photo.uprightSize(shrink: plan.dctShrink))
    }

    /// The front's three files made row by row: rows go from libjpeg-turbo through the
    /// resampler's ring, the effect and the frame blend straight into the print's encoder
    /// and the sample's resampler; no whole-image buffer but the small sample. The bytes
    /// are those of `print` then `encode` (tested: the pinned card goes this way).
    /// - Returns: nil when the plan cannot be streamed (`streamableBox`).
    func streamed(_ plan: CardPlan, photo: FastJPEGSource) throws -> (RenderedSide, warning: String?)? {
        guard let box = streamableBox(plan, photo: photo) else { return nil }
        let window = plan.layout.window
        let (card, sampleSize) = (plan.printSize, plan.sampleSize)
        guard let encoding = settings.printFile.encoding else { return nil }
        let colour = plan.background.map { UInt8(max(0, min(255, $0.rounded()))) }
        let background = MemoryImage(width: card.width, height: 1, colour: colour).pixels
        let effect = plan.effect.parameters.map { parameters in
            PixelKernels.ColourPlan(
                width: window.width, height: window.height, matrix: parameters.matrix.flatMap { $0 },
                contrast: parameters.contrast, lift: parameters.lift, vignette: parameters.vignette)
        }
        let printer = try JPEGCodec.RowEncoder(
            width: card.width, height: card.height, quality: encoding.quality,
            fullChroma: FastEncoder.fullChroma(encoding), optimize: false,
            dotsPerInch: encoding.keepResolution ? plan.dpi : 0)
        let sampler = PixelKernels.Stream(
            sourceWidth: card.width, sourceHeight: card.height,
            box: (0, 0, Double(card.width), Double(card.height)), width: sampleSize.width, height: sampleSize.height)
        var sample = [UInt8](repeating: 0, count: sampleSize.width * sampleSize.height * 3)
        var sampleRows = 0
        let warning: String? = try photo.photo.withUnsafeBytes { bytes in
            let decoder = try damage(photo) {
                try JPEGCodec.RowDecoder(bytes, scale: plan.dctShrink, strict: settings.policy.damage == .fail)
            }
            let resampler = PixelKernels.Stream(
                sourceWidth: decoder.width, sourceHeight: decoder.height, box: box, width: window.width,
                height: window.height)
            var source = [UInt8](repeating: 0, count: decoder.width * 3)
            var row = background
            var decoded = 0
            try row.withUnsafeMutableBufferPointer { rowBuffer in
                let row = rowBuffer.baseAddress!
                for y in 0..<card.height {
                    background.withUnsafeBufferPointer { row.update(from: $0.baseAddress!, count: $0.count) }
                    if (window.y..<(window.y + window.height)).contains(y) {
                        let target = row + window.x * 3
                        while !resampler.pull(into: target) {
                            guard let next = resampler.nextInput else {
                                preconditionFailure("PixelKernels.Stream: no row ready and none wanted")
                            }
                            try damage(photo) {
                                if next > decoded { try decoder.skip(next - decoded) }
                                let read = try source.withUnsafeMutableBufferPointer {
                                    try decoder.read(into: $0.baseAddress!, stride: decoder.width * 3, count: 1)
                                }
                                guard read == 1 else {
                                    throw ImageInputError.damaged(file: photo.photo.name, detail: "no rows decoded")
                                }
                            }
                            decoded = next + 1
                            if let transform = photo.transform {
                                source.withUnsafeMutableBufferPointer {
                                    transform.apply($0.baseAddress!, count: decoder.width)
                                }
                            }
                            source.withUnsafeBufferPointer { resampler.push($0.baseAddress!) }
                        }
                        effect?.apply(target, stride: window.width * 3, first: y - window.y, rows: 1)
                    }
                    if let art = plan.art {
                        art.colourPixels.withUnsafeBufferPointer { paint in
                            art.alphaPixels.withUnsafeBufferPointer { alpha in
                                PixelKernels.blend(
                                    row, colour: paint.baseAddress! + y * card.width * 3,
                                    alpha: alpha.baseAddress! + y * card.width, width: card.width, rows: 1)
                            }
                        }
                    }
                    try printer.write(row, stride: card.width * 3, count: 1)
                    if sampler.nextInput == y { sampler.push(row) }
                    sample.withUnsafeMutableBufferPointer { buffer in
                        while sampleRows < sampleSize.height,
                            sampler.pull(into: buffer.baseAddress! + sampleRows * sampleSize.width * 3)
                        {
                            sampleRows += 1
                        }
                    }
                }
            }
            return try damage(photo) { try decoder.finish() }
        }
        let printData = try printer.finish()
        let sampleImage = MemoryImage(width: sampleSize.width, height: sampleSize.height, pixels: sample)
        let side = try encode(print: printData, sample: sampleImage, plan: plan)
        return (side, warning.map { "\(photo.photo.name): damaged image data, rendered what decodes (\($0))." })
    }

    /// `body`, with libjpeg's decode failures made the photo's (`ImageInputError.damaged`).
    private func damage<T>(_ photo: FastJPEGSource, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as JPEGCodec.Failure {
            throw ImageInputError.damaged(file: photo.photo.name, detail: failure.message)
        }
    }
}
