import ImageCore
import VipsKit

/// A thumbnail resolved once from the photo's header (read once): its size, its executor
/// and, for the fast one, the DCT scale. The card plan's counterpart (`CardPlan`).
struct ThumbnailPlan {
    /// The output size (GD-style: the width asked, the height by the aspect ratio).
    let size: Size
    /// Who runs it (`Executor.choose`, as for cards).
    let executor: Executor
    /// The fast executor's DCT scale: the smallest of 1, 2, 4, 8 that leaves a reduction of
    /// at least 2 (as libvips's `thumbnail` does); 1 for the general executor.
    let dctShrink: Int

    init(photo: ImageData, header: ImageHeader, width: Int, enlarge: Bool, options: EncodeOptions, engine: RenderEngine)
    {
        let output = Thumbnailer.outputSize(
            sourceWidth: header.uprightWidth, sourceHeight: header.uprightHeight, width: width, enlarge: enlarge)
        size = Size(width: output.width, height: output.height)
        executor = Executor.choose(
            photo: photo, header: header, engine: engine, colourOnly: true, keepsMetadata: options.keepMetadata)
        if case .fast(let source) = executor {
            dctShrink = source.shrink(atLeast: output, headroom: 2)
        } else {
            dctShrink = 1
        }
    }
}
