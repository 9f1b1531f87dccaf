import FastPath
import ImageCore
import VipsKit

/// The fast executor (libjpeg-turbo or libheif, the SIMD kernels, libpng): a plan's front in
/// memory, or streamed row by row where it declares it can (`FastCardRenderer.streamableBox`:
/// a JPEG stored upright whose window one box of it fills) and no press needs the pixels.
struct FastCardExecutor<Source: FastPhotoSource>: CardExecutor {
    let source: Source
    let renderer: FastCardRenderer
    var path: RenderPath { .fast }

    func front(_ plan: CardPlan, photo: ImageData, keepPixels: Bool) throws -> ExecutedFront {
        if !keepPixels, let jpeg = source as? FastJPEGSource,
            let (side, warning) = try CardRenderFailure.during(
                .encoding, file: photo.name, { try renderer.streamed(plan, photo: jpeg) })
        {
            return ExecutedFront(side: side, pixels: nil, warning: warning)
        }
        let (print, warning) = try renderer.print(plan, photo: source)
        let side = try CardRenderFailure.during(.encoding, file: photo.name) { try renderer.encode(print, plan: plan) }
        return ExecutedFront(side: side, pixels: keepPixels ? print : nil, warning: warning)
    }
}
