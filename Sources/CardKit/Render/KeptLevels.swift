import FastPath
import ImageCore
import PhotoSources

/// A photo whose decode levels (`DecodeLevel`) are kept in `DecodedPhotos` between previews:
/// a level is made whole once, from the photo's decode at its DCT scale, or halved from a
/// finer level of that decode already kept (no decode), and every later preview reading that
/// level starts from it. Levels are kept, not the decode (unless it is the level): a 12 MP
/// photo's preview keeps 2 to 12 MB rather than its 36 MB decode. The pixels are those a card's sample reads (a level
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
        func key(_ halvings: Int) -> String { "\(level.shrink)/\(halvings)" }
        if let hit = kept.decode(digest: name, level: key(level.halvings)) { return (hit.image, 0, hit.warning) }
        // A finer level of the same decode kept (a pinch back out): halved from it, no decode.
        var made: DecodedPhotos.Decode?
        for finer in stride(from: level.halvings - 1, through: 0, by: -1) {
            guard let hit = kept.decode(digest: name, level: key(finer)) else { continue }
            made = DecodedPhotos.Decode(
                image: PixelKernels.halved(hit.image, times: level.halvings - finer), warning: hit.warning)
            break
        }
        if made == nil {
            // Decoded whole, then halved level by level: each level on the way is kept too (a
            // pinch out then needs no decode), the decode itself only when it is the level.
            let size = source.uprightSize(shrink: level.shrink)
            kept.makeRoom(for: size.width * size.height * 3 * (level.halvings == 0 ? 1 : 2))
            let whole = try source.decodeUpright(shrink: level.shrink, rows: nil, policy: policy)
            var image = whole.image
            for halvings in stride(from: 1, to: level.halvings, by: 1) {
                image = PixelKernels.halved(image)
                kept.keep(
                    DecodedPhotos.Decode(image: image, warning: whole.warning), digest: name, level: key(halvings))
            }
            if level.halvings > 0 { image = PixelKernels.halved(image) }
            made = DecodedPhotos.Decode(image: image, warning: whole.warning)
        }
        kept.keep(made!, digest: name, level: key(level.halvings))
        return (made!.image, 0, made!.warning)
    }
}
