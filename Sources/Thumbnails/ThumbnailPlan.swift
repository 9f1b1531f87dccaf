import FastPath
import ImageCore
import PhotoSources
import VipsKit

/// A thumbnail resolved once from the photo's header (read once): its geometry, its
/// executor and, for the fast one, the DCT scale. The card plan's counterpart (`CardPlan`).
package struct ThumbnailPlan {
    /// What the thumbnail shows and its size (`ThumbnailBox.geometry`); for `attention`,
    /// the crop centred until the executor finds the point in the pixels it decodes.
    package let geometry: ThumbnailGeometry
    /// Who runs it (`Executor.choose`, as for cards; an HEIF takes the fast executor when
    /// libheif's transformations are a turn alone, no attention measure is asked and its
    /// embedded thumbnail is smaller than the thumbnail).
    package let executor: Executor
    /// The fast executor's DCT scale: the smallest of 1, 2, 4, 8 that leaves a reduction of
    /// at least 2 (as libvips's `thumbnail` does) for the whole photo at the crop's scale;
    /// 1 for an HEIF and for the general executor.
    package let dctShrink: Int
    /// Whether the crop's place waits for libvips's attention measure on the decode.
    package let needsAttention: Bool
    /// What a decode holding the whole picture takes while it runs, reserved in the
    /// thumbnailer's `decodeBudget`: an HEIF's (libheif decodes every pixel; about 5 bytes a
    /// pixel at the fast path's peak, 9 on libvips's with its RGB picture and copy; nothing
    /// when libvips starts from the embedded thumbnail). A JPEG's is the fast executor's to
    /// reserve (only a decode it holds whole, `Thumbnailer.decode`); other formats' are read
    /// sequentially by libvips: 0.
    package let wholeDecodeBytes: Int

    package init(
        photo: ImageData, header: ImageHeader, request: ThumbnailRequest, options: EncodeOptions, engine: RenderEngine
    ) {
        let box = request.box.canonical
        geometry = box.geometry(
            sourceWidth: header.uprightWidth, sourceHeight: header.uprightHeight, enlarge: request.enlarge)
        needsAttention =
            box.fit == .cover && box.gravity == .attention
            && !geometry.isWhole(sourceWidth: header.uprightWidth, sourceHeight: header.uprightHeight)
        let whole = geometry.wholeSize(sourceWidth: header.uprightWidth, sourceHeight: header.uprightHeight)
        var executor = Executor.choose(
            photo: photo, header: header, engine: engine, colourOnly: true, keepsMetadata: options.keepMetadata,
            allowsHEIF: true)
        let embeddedCovers =
            header.format == .heif && Self.embeddedThumbnailCovers(photo, whole: whole)
        if case .fastHEIF(let source) = executor, needsAttention || !source.streams || embeddedCovers {
            executor = .general
        }
        self.executor = executor
        switch executor {
        case .fastHEIF: wholeDecodeBytes = header.width * header.height * 5
        case .general where header.format == .heif && !embeddedCovers:
            wholeDecodeBytes = header.width * header.height * 9
        case .general, .fast: wholeDecodeBytes = 0
        }
        if case .fast(let source) = executor {
            dctShrink = source.shrink(atLeast: whole, headroom: 2)
        } else {
            dctShrink = 1
        }
    }

    /// Whether the HEIF's embedded thumbnail is larger than `whole` (the photo at the
    /// thumbnail's scale): libvips's `thumbnail` then starts from it (libvips 8.14 takes it
    /// when it would shrink it, not when equal), a few milliseconds where the primary
    /// image's HEVC decode takes hundreds.
    private static func embeddedThumbnailCovers(_ photo: ImageData, whole: (width: Int, height: Int)) -> Bool {
        guard
            let embedded = try? photo.withUnsafeBytes({ bytes throws(HEIFCodec.Failure) in
                try HEIFCodec.thumbnailSize(of: bytes)
            })
        else { return false }
        return embedded.width > whole.width && embedded.height > whole.height
    }

    /// A plan for the general executor that cuts `geometry` as it is (a placeholder's).
    package init(geometry: ThumbnailGeometry) {
        self.geometry = geometry
        executor = .general
        dctShrink = 1
        needsAttention = false
        wholeDecodeBytes = 0
    }
}
