import FastPath
import ImageCore
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
    /// The app calls this at every gesture, so the photo's decode is kept in `decoded`
    /// (under `digest` and the DCT scale) for the next preview of the same photo; the fast
    /// executor then only resamples, blends and encodes. The general executor (PNG, TIFF,
    /// any angle, `--engine general`) keeps the photo's whole decode, opaque sRGB, likewise
    /// (`PhotoPlacer.decode`), and encodes the sample alone.
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
        let (spec, _, plan, _) = try prepare(photo: photo, spec: spec, specFile: specFile)
        switch side {
        case .back:
            guard spec.message != nil || !spec.recipients.isEmpty else {
                throw CardSpecError.expected(
                    "a message or recipients (a card without them has no back to preview)", at: "message",
                    received: nil, in: specFile)
            }
            let backs = try CardRenderFailure.during(.back, file: specFile) {
                try VersoRenderer(postedFrom: settings.postedFrom).render(
                    message: spec.message, sender: spec.sender, recipients: Array(spec.recipients.prefix(1)),
                    format: spec.format, specFile: specFile)
            }
            return try CardRenderFailure.during(.back, file: specFile) {
                try CardOutputs(printSize: Size(width: backs[0].width, height: backs[0].height), settings: settings)
                    .encode(backs[0]).sample
            }
        case .front:
            let fast = FastCardRenderer(settings: settings)
            let print: MemoryImage
            switch plan.executor {
            case .fast(let source):
                print = try fast.print(plan, photo: KeptDecode(source: source, digest: digest, kept: decoded)).0
            case .fastHEIF(let source):
                print = try fast.print(plan, photo: KeptDecode(source: source, digest: digest, kept: decoded)).0
            case .general:
                return try GeneralCardExecutor(settings: settings).sample(
                    plan, photo: photo, digest: digest, kept: decoded)
            }
            return try CardRenderFailure.during(.encoding, file: photo.name) {
                try fast.encodeSample(print, plan: plan)
            }
        }
    }
}

/// A fast-path photo whose whole decode at a DCT scale is kept in `DecodedPhotos` and
/// handed out again (a source may decode more rows than asked: `FastPhotoSource`).
private struct KeptDecode<Source: FastPhotoSource>: FastPhotoSource {
    let source: Source
    let digest: String
    let kept: DecodedPhotos?

    var photo: ImageData { source.photo }
    var transformAfterResampling: ColourTransform? { source.transformAfterResampling }

    func uprightSize(shrink: Int) -> (width: Int, height: Int) { source.uprightSize(shrink: shrink) }

    func decodeUpright(shrink: Int, rows: Range<Int>?, policy: DecodePolicy) throws
        -> (image: MemoryImage, top: Int, warning: String?)
    {
        // Strict and lenient decodes differ for a damaged photo: each is kept under its own name.
        let name = "\(digest) \(policy.damage == .fail ? "strict" : "lenient")"
        if let decode = kept?.decode(digest: name, shrink: shrink) { return (decode.image, 0, decode.warning) }
        let size = source.uprightSize(shrink: shrink)
        kept?.makeRoom(for: size.width * size.height * 3)
        let whole = try source.decodeUpright(shrink: shrink, rows: nil, policy: policy)
        kept?.keep(DecodedPhotos.Decode(image: whole.image, warning: whole.warning), digest: name, shrink: shrink)
        return whole
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
