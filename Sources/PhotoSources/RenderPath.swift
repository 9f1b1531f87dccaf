/// Which pixel path rendered a card's front or a thumbnail.
public enum RenderPath: String, Sendable, Codable, CaseIterable {
    /// libjpeg-turbo and the SIMD kernels, in memory: JPEG photos in YCbCr (or grey, for
    /// cards) without a colour profile or with an sRGB one; for cards, crop or quarter-turn
    /// placements.
    case fast
    /// libvips's lazy pipeline: every other photo and placement, and every card back.
    case general

    /// The revision of this executor's arithmetic: part of every cache key, so bytes made by
    /// one revision are never served for another, even within one cardrender release.
    ///
    /// Bump the fast one whenever a change to the fast path (kernels, rounding, encoders'
    /// settings) changes any output byte; the general one likewise for the libvips path's own
    /// settings (libvips's version is in the key already). `ExecutorRevisionTests` pins the
    /// bytes of a synthetic card and thumbnail per revision, so such a change cannot ship
    /// without a new revision.
    ///
    /// Fast (libjpeg-turbo, CPixelKernels, libpng): 2: 16-bit kernels, integer colour effect,
    /// PNG level 1 with Paeth. 3: covers streamed as one box of the photo (resampled straight
    /// to the window instead of resized whole and cut). 4: JPEGs with an RGB profile other
    /// than sRGB (Display P3) converted by lcms2 on the fast path. 5: a card's HEIF photo (an
    /// iPhone's HEIC) decoded by libheif on the fast path. 6: a reduced crop scaled across
    /// and down to fit the window (one resampling); a press PDF's title is "Postcard", not the
    /// photo's file name. 7: the sample drawn from the photo at its own size (a halved level
    /// of the print's decode), not reduced from the print; any angle turned on the fast
    /// executor. 8: an HEIF's thumbnails larger than its embedded one on the fast executor
    /// (resampled from the decode's YCbCr planes row by row) instead of libvips's `thumbnail`.
    ///
    /// General (libvips's settings): 2: PNG level 1 with Paeth. 3: only the part of the photo
    /// the window shows is placed (enlarging: a bicubic affine of that box alone); a reduced
    /// crop resampled once; a press PDF's title is "Postcard". 4: the sample drawn from the
    /// photo at its own size, not reduced from the print.
    public var revision: Int {
        switch self {
        case .fast: 8
        case .general: 4
        }
    }

    /// `fast <n> general <n>`, as the cache key carries it.
    public static var revisions: String { "fast \(RenderPath.fast.revision) general \(RenderPath.general.revision)" }
}
