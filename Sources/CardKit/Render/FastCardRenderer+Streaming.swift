import FastPath
import ImageCore
import PhotoSources

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
        guard photo.info.orientation == 1, !plan.isSample,
            case .region(let box, let size, 0, 0, 0) = plan.source,
            size.width == plan.layout.window.width, size.height == plan.layout.window.height
        else { return nil }
        return plan.box(
            left: box.left, top: box.top, width: box.width, height: box.height,
            decoded: photo.uprightSize(shrink: plan.dctShrink))
    }

    /// A print streamed: its file, and the decoded rows kept for the sample.
    struct StreamedPrint {
        /// The print file.
        let print: [UInt8]
        /// The rows of the decode asked to be kept (`keeping`), the first being `top`.
        let kept: MemoryImage?
        let top: Int
        /// The warning of a lenient decode.
        let warning: String?
    }

    /// The print file made row by row: rows go from libjpeg-turbo through the resampler's
    /// ring, the effect and the frame blend straight into the print's encoder; no whole-image
    /// buffer. The bytes are those of `pixels` then `encodePrint` (tested: the pinned card goes
    /// this way). The decoded rows `keeping` (which the sample will read) are copied aside as
    /// they pass, and decoded for that even where the print reads none, so the photo is decoded
    /// once for both.
    /// - Returns: nil when the plan cannot be streamed (`streamableBox`).
    func streamed(_ plan: CardPlan, photo: FastJPEGSource, keeping: Range<Int>? = nil) throws -> StreamedPrint? {
        guard let box = streamableBox(plan, photo: photo) else { return nil }
        let window = plan.layout.window
        let card = plan.printSize
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
        var kept: [UInt8] = []
        var keptWidth = 0
        let (warning, keptRows): (String?, Range<Int>?) = try photo.photo.withUnsafeBytes { bytes in
            let decoder = try damage(photo) {
                try JPEGCodec.RowDecoder(bytes, scale: plan.dctShrink, strict: settings.policy.damage == .fail)
            }
            let keeping = keeping.map { $0.clamped(to: 0..<decoder.height) }.flatMap { $0.isEmpty ? nil : $0 }
            kept.reserveCapacity((keeping?.count ?? 0) * decoder.width * 3)
            keptWidth = decoder.width
            let resampler = PixelKernels.Stream(
                sourceWidth: decoder.width, sourceHeight: decoder.height, box: box, width: window.width,
                height: window.height)
            var source = [UInt8](repeating: 0, count: decoder.width * 3)
            var decoded = 0
            /// Decodes up to and including row `last` (skipping what neither the print nor the
            /// kept rows read), keeping the kept rows; the source buffer then holds row `last`.
            func decode(through last: Int) throws {
                while decoded <= last {
                    if decoded < last, keeping?.contains(decoded) != true {
                        // Read by neither: skipped (libjpeg skips the IDCT) up to the next row read.
                        var next = last
                        if let keeping, decoded < keeping.lowerBound { next = min(last, keeping.lowerBound) }
                        try damage(photo) { try decoder.skip(next - decoded) }
                        decoded = next
                        continue
                    }
                    try damage(photo) {
                        let read = try source.withUnsafeMutableBufferPointer {
                            try decoder.read(into: $0.baseAddress!, stride: decoder.width * 3, count: 1)
                        }
                        guard read == 1 else {
                            throw ImageInputError.damaged(file: photo.photo.name, detail: "no rows decoded")
                        }
                    }
                    if let transform = photo.transform {
                        source.withUnsafeMutableBufferPointer { transform.apply($0.baseAddress!, count: decoder.width) }
                    }
                    if let keeping, keeping.contains(decoded) { kept.append(contentsOf: source) }
                    decoded += 1
                }
            }
            var row = background
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
                            try decode(through: next)
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
                }
            }
            if let keeping, decoded < keeping.upperBound { try decode(through: keeping.upperBound - 1) }
            return (try damage(photo) { try decoder.finish() }, keeping)
        }
        let printData = try printer.finish()
        return StreamedPrint(
            print: printData,
            kept: keptRows.map { MemoryImage(width: keptWidth, height: $0.count, pixels: kept) },
            top: keptRows?.lowerBound ?? 0,
            warning: warning.map { "\(photo.photo.name): damaged image data, rendered what decodes (\($0))." })
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
