import FastPath
import ImageCore
import PhotoSources
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension CardRenderer {
    /// Which side of a card a preview shows.
    public enum PreviewSide: String, Sendable, CaseIterable {
        case front, back
    }

    /// The sample image of one side of the card `render` makes of `photo` and `spec`: the
    /// same bytes as that card's `sample` file, made without its print file or small image.
    ///
    /// The card's sample plan run alone (`CardExecutor.sample`, the code that makes a card's
    /// sample): drawn at the sample's size from the photo, never from a print. The app calls
    /// this at every gesture, so the photo's decode levels are kept in `decoded` (under
    /// `digest`: `KeptLevels`) for the next preview of the same photo; the fast executor then
    /// only resamples the window from the smallest level covering it, turns it, blends and
    /// encodes. The general executor (PNG, TIFF, `--engine general`) keeps the photo's whole
    /// decode, opaque sRGB, likewise (`PhotoPlacer.decode`).
    /// - Parameters:
    ///   - photo: the photo's bytes.
    ///   - digest: their content digest (the key of the kept decode).
    ///   - side: the photo side, or the back (the first recipient's, or the message alone).
    ///   - decoded: where decodes are kept between previews (nil: none kept).
    /// - Throws: what `render` throws; `CardSpecError` (`message`) for the back of a card
    ///   that has none.
    public func preview(
        photo: ImageData, digest: String, spec: CardSpec, side: PreviewSide, specFile: String,
        decoded: DecodedPhotos?
    ) throws -> Data {
        let (spec, frame, plan, _) = try prepare(photo: photo, spec: spec, specFile: specFile)
        switch side {
        case .back:
            guard spec.message != nil || !spec.recipients.isEmpty else {
                throw CardSpecError.expected(
                    "a message or recipients (a card without them has no back to preview)", at: "message",
                    received: nil, in: specFile)
            }
            let backs = try CardRenderFailure.during(.back, file: specFile) {
                try verso(spec, specFile: specFile).render(
                    message: spec.message, sender: spec.sender, recipients: Array(spec.recipients.prefix(1)),
                    format: spec.format, specFile: specFile)
            }
            return try CardRenderFailure.during(.back, file: specFile) {
                try CardOutputs(printSize: Size(width: backs[0].width, height: backs[0].height), settings: settings)
                    .encode(backs[0]).sample
            }
        case .front:
            return try plan.executor.runner(settings: settings).sample(
                try samplePlan(of: plan, frame: frame), photo: photo, digest: digest, kept: decoded)
        }
    }
}

extension CardRenderer {
    /// Runs every check `render` makes before any pixel work (the photo's header, the
    /// spec's limits, its message and frame, the placement), so that an order is refused
    /// when it is placed rather than failed when it is rendered.
    /// - Throws: what `render` throws for those.
    public func check(photo: ImageData, spec: CardSpec, specFile: String) throws {
        _ = try prepare(photo: photo, spec: spec, specFile: specFile, placing: false)
    }
}
