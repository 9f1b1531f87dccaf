import FastPath
import ImageCore
import VipsKit

/// A photo whose decode levels (`DecodeLevel`) are kept in `DecodedPhotos` between previews:
/// a level is made whole once, from the photo's decode at its DCT scale (kept too, for the
/// other levels of that scale: an HEIF photo is decoded once), and every later preview
/// reading that level starts from it. The pixels are those a card's sample reads (a level
/// made whole or from a band of rows is the same: `DecodeLevel.halve`).
struct KeptLevels<Source: FastPhotoSource>: FastPhotoSource {
    let source: Source
    /// The photo's content digest, the key of what is kept.
    let digest: String
    let kept: DecodedPhotos

    var photo: ImageData { source.photo }
    var transformAfterResampling: ColourTransform? { source.transformAfterResampling }

    func uprightSize(shrink: Int) -> (width: Int, height: Int) { source.uprightSize(shrink: shrink) }

    func decodeUpright(shrink: Int, rows: Range<Int>?, policy: DecodePolicy) throws
        -> (image: MemoryImage, top: Int, warning: String?)
    {
        try decodeLevel(DecodeLevel(shrink: shrink, halvings: 0), rows: rows, policy: policy)
    }

    func decodeLevel(_ level: DecodeLevel, rows: Range<Int>?, policy: DecodePolicy) throws
        -> (image: MemoryImage, top: Int, warning: String?)
    {
        // Strict and lenient decodes differ for a damaged photo: each is kept under its own name.
        let name = "\(digest) \(policy.damage == .fail ? "strict" : "lenient")"
        let key = "\(level.shrink)/\(level.halvings)"
        if let hit = kept.decode(digest: name, level: key) { return (hit.image, 0, hit.warning) }
        let base: DecodedPhotos.Decode
        let baseKey = "\(level.shrink)/0"
        if let hit = kept.decode(digest: name, level: baseKey) {
            base = hit
        } else {
            let size = source.uprightSize(shrink: level.shrink)
            kept.makeRoom(for: size.width * size.height * 3)
            let whole = try source.decodeUpright(shrink: level.shrink, rows: nil, policy: policy)
            base = DecodedPhotos.Decode(image: whole.image, warning: whole.warning)
            kept.keep(base, digest: name, level: baseKey)
        }
        guard level.halvings > 0 else { return (base.image, 0, base.warning) }
        let made = DecodedPhotos.Decode(
            image: level.halve(base.image, top: 0, decodedHeight: base.image.height).image, warning: base.warning)
        kept.keep(made, digest: name, level: key)
        return (made.image, 0, made.warning)
    }
}
