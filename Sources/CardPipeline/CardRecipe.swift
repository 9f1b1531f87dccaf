import CardKit
import RenderCache

/// Everything that decides a card's output bytes besides the photo's content: the spec
/// as parsed (defaults filled in), the frame's manifest and the digest of its art, and
/// every renderer setting. Each part is `Encodable` as it is, so a field added to the
/// spec or the settings is in the key without anyone copying it here.
///
/// The spec's `photo` path is left out: the same photo bytes under two names are one entry.
struct CardRecipe: Encodable {
    var kind = "card-v1"
    var spec: CardSpec
    var frame: FrameDesign?
    var frameArtDigest: String?
    var settings: CardSettings
    /// The font files a back may be drawn with (`MessageFonts`), for a card that has one.
    var fonts: String?
    /// How an automatic placement is chosen (`FirstPlacement.version`, and whether OpenCV
    /// and its cascades are here to find faces), for a card that has one.
    var placing: String?

    /// - Throws: `CacheError` when the frame art or a message font cannot be read.
    init(spec: CardSpec, renderer: CardRenderer, memo: DigestMemo) throws {
        var spec = spec
        spec.photo = nil
        self.spec = spec
        let design = spec.frame.flatMap { renderer.catalogue?.frame($0) }
        frame = design
        frameArtDigest = try design.map { design in
            try memo.digest(ofFile: renderer.catalogue!.artFile(of: design))
        }
        settings = renderer.settings
        fonts = spec.message != nil || !spec.recipients.isEmpty ? try MessageFonts.fingerprint(memo: memo) : nil
        placing =
            spec.placement == .automatic ? "\(FirstPlacement.version), \(FaceDetector.availability)" : nil
    }
}
