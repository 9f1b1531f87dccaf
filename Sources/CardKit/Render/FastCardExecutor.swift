import FastPath
import ImageCore
import PhotoSources

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The fast executor (libjpeg-turbo or libheif, the SIMD kernels, libpng): a plan's front in
/// memory, the print streamed row by row where it declares it can (`FastCardRenderer.streamableBox`:
/// a JPEG stored upright whose window one box of it fills) and no press needs the pixels. The
/// photo is decoded once for the print and the sample: the sample reads a halved level of
/// the rows the print's decode kept for it (`SharedDecode`).
struct FastCardExecutor<Source: FastPhotoSource>: CardExecutor {
    let source: Source
    let renderer: FastCardRenderer
    var path: RenderPath { .fast }

    func front(_ plan: CardPlan, sample: CardPlan, photo: ImageData, keepPixels: Bool) throws -> ExecutedFront {
        // The rows of the print's decode the sample reads (its level's rows, ungrouped).
        let decoded = source.uprightSize(shrink: plan.level.shrink)
        let reserve = renderer.rowsRead(sample, levelSize: sample.level.size(fromDecoded: decoded)).map {
            ($0.lowerBound << sample.level.halvings)..<min(decoded.height, $0.upperBound << sample.level.halvings)
        }
        let printData: [UInt8]
        var pixels: MemoryImage?
        var warning: String?
        let shared: SharedDecode<Source>
        if !keepPixels, let jpeg = source as? FastJPEGSource,
            let streamed = try CardRenderFailure.during(
                .encoding, file: photo.name, { try renderer.streamed(plan, photo: jpeg, keeping: reserve) })
        {
            printData = streamed.print
            warning = streamed.warning
            shared = SharedDecode(
                source, reserve: nil,
                band: streamed.kept.map { ($0, streamed.top, streamed.warning, plan.level.shrink) })
        } else {
            shared = SharedDecode(source, reserve: reserve, band: nil)
            let (print, printWarning) = try renderer.pixels(plan, photo: shared)
            warning = printWarning
            printData = try CardRenderFailure.during(.encoding, file: photo.name) {
                try renderer.encodePrint(print, plan: plan)
            }
            pixels = keepPixels ? print : nil
        }
        let (samplePixels, sampleWarning) = try renderer.pixels(sample, photo: shared)
        let files = try CardRenderFailure.during(.encoding, file: photo.name) {
            try renderer.encodeSample(samplePixels, plan: sample, small: true)
        }
        return ExecutedFront(
            side: RenderedSide(print: Data(printData), sample: files, plan: plan), pixels: pixels,
            warning: warning ?? sampleWarning)
    }

    func sample(_ sample: CardPlan, photo: ImageData, digest: String, kept: DecodedPhotos?) throws -> Data {
        let pixels: MemoryImage
        if let kept {
            pixels = try renderer.pixels(sample, photo: KeptLevels(source: source, digest: digest, kept: kept)).0
        } else {
            pixels = try renderer.pixels(sample, photo: source).0
        }
        return try CardRenderFailure.during(.encoding, file: photo.name) {
            try renderer.encodeSample(pixels, plan: sample, small: false).sample
        }
    }
}
