import FastPath
import ImageCore
import VipsKit

/// The general executor: libvips runs any plan (every format, any angle, TIFF prints).
/// Only the decode (of the part of the photo the window needs, into memory) runs inside the
/// damage handler: a libvips failure there is the photo's (damaged data). Placing, the
/// effect, the frame and encoding run after it: a failure there is cardrender's
/// (`CardRenderFailure`, naming the stage where libvips's lazy pipeline ran), never blamed on
/// the input nor retried leniently.
struct GeneralCardExecutor: CardExecutor {
    let settings: CardRenderer.Settings
    var path: RenderPath { .general }

    func front(_ plan: CardPlan, photo: ImageData, keepPixels: Bool) throws -> ExecutedFront {
        // libvips opened before the damage handler: a missing or refused libvips is not a
        // damaged photo (the header of a JPEG is read without it).
        try Vips.open()
        let placer = PhotoPlacer(plan: plan, policy: settings.policy)
        let (decoded, warning) = try renderHandlingDamage(photo, policy: settings.policy) { strict in
            try placer.decode(photo, strict: strict)
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
        return try CardRenderFailure.during(.encoding, file: photo.name) {
            ExecutedFront(
                side: try plan.outputs.encode(print),
                pixels: keepPixels
                    ? MemoryImage(width: print.width, height: print.height, pixels: try print.eightBitPixels()) : nil,
                warning: warning)
        }
    }
}
