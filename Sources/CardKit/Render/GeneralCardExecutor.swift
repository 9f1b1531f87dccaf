import FastPath
import ImageCore
import PhotoSources
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The general executor: libvips runs any plan (every format, any angle, TIFF prints); the
/// print's and the sample's each from the photo (libvips shrinks on load to each size).
/// Only the decode (of the part of the photo the window needs, into memory) runs inside the
/// damage handler: a libvips failure there is the photo's (damaged data). Placing, the
/// effect, the frame and encoding run after it: a failure there is cardrender's
/// (`CardRenderFailure`, naming the stage where libvips's lazy pipeline ran), never blamed on
/// the input nor retried leniently.
struct GeneralCardExecutor: CardExecutor {
    let settings: CardSettings
    var path: RenderPath { .general }

    func front(_ plan: CardPlan, sample: CardPlan, photo: ImageData, keepPixels: Bool) throws -> ExecutedFront {
        let (print, warning) = try pixels(plan, photo: photo, kept: nil)
        let (samplePixels, _) = try pixels(sample, photo: photo, kept: nil)
        return try CardRenderFailure.during(.encoding, file: photo.name) {
            ExecutedFront(
                side: RenderedSide(
                    print: try plan.outputs.encodePrint(print),
                    sample: try sample.outputs.encodeSample(samplePixels, small: true), plan: plan),
                pixels: keepPixels
                    ? MemoryImage(width: print.width, height: print.height, pixels: try print.eightBitPixels()) : nil,
                warning: warning)
        }
    }

    /// The sample plan's sample alone (`front`'s `sample` bytes), for a preview: the photo's
    /// whole decode kept in `kept` under `digest` for the next preview (see
    /// `PhotoPlacer.decode`), and the small image not encoded.
    func sample(_ sample: CardPlan, photo: ImageData, digest: String, kept: DecodedPhotos?) throws -> Data {
        let (pixels, _) = try pixels(sample, photo: photo, kept: kept.map { (digest, $0) })
        return try CardRenderFailure.during(.encoding, file: photo.name) {
            try sample.outputs.encodeSample(pixels, small: false).sample
        }
    }

    /// The plan's pixels (the print's, or the sample's), in memory, and the damage warning.
    private func pixels(_ plan: CardPlan, photo: ImageData, kept: (digest: String, photos: DecodedPhotos)?)
        throws -> (VImage, warning: String?)
    {
        // libvips opened before the damage handler: a missing or refused libvips is not a
        // damaged photo (the header of a JPEG is read without it).
        try Vips.open()
        let placer = PhotoPlacer(plan: plan, policy: settings.policy)
        let (decoded, warning) = try renderHandlingDamage(photo, policy: settings.policy) { strict in
            try placer.decode(photo, strict: strict, kept: kept)
        }
        let window = try CardRenderFailure.during(.placing, file: photo.name) { try placer.place(decoded) }
        var card = try CardRenderFailure.during(.effect, file: photo.name) {
            try plan.effect.apply(to: window)
                .embedded(
                    x: plan.layout.window.x, y: plan.layout.window.y, width: plan.printSize.width,
                    height: plan.printSize.height, background: plan.background)
        }
        let print = try CardRenderFailure.during(.blending, file: photo.name) {
            if let art = plan.art {
                let (colour, alpha) = try art.images()
                card = try card.blended(with: colour, mask: alpha)
            }
            return try card.withResolution(dotsPerInch: Double(plan.dpi)).inMemory()
        }
        return (print, warning)
    }
}
