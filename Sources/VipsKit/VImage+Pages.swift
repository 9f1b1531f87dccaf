internal import CVips
internal import CVipsShim
import ImageCore

extension VImage {
    /// The pages (an animation's frames) this image holds: 1 for a still image.
    /// libvips: `vips_image_get_n_pages`.
    public var pages: Int { withPointer { Int(CVipsShim_n_pages($0)) } }

    /// The height of one page: the whole height for a still image.
    /// libvips: `vips_image_get_page_height`.
    public var pageHeight: Int { withPointer { Int(CVipsShim_page_height($0)) } }

    /// Every page of an animation (`pages` pages of `pageHeight` rows) cut to `box`, placed
    /// at (`x`, `y`) on a `canvas` of `background` (one value per band), and joined again:
    /// a crop or a pad applied to each frame alike.
    /// libvips: `vips_extract_area`, `vips_embed`, `vips_arrayjoin`.
    public func reframingPages(
        _ pages: Int, pageHeight: Int, box: (left: Int, top: Int, width: Int, height: Int), x: Int, y: Int,
        canvas: (width: Int, height: Int), background: [Double]
    ) throws(VipsError) -> VImage {
        try derive("arrayjoin") { input, output in
            background.withUnsafeBufferPointer {
                CVipsShim_reframe_pages(
                    input, output, Int32(pages), Int32(pageHeight), Int32(box.left), Int32(box.top),
                    Int32(box.width), Int32(box.height), Int32(x), Int32(y), Int32(canvas.width),
                    Int32(canvas.height), $0.baseAddress, Int32($0.count))
            }
        }
    }

    /// The image with an opaque alpha band added, or itself when it has one.
    /// libvips: `vips_bandjoin_const1`.
    public func withAlpha() throws(VipsError) -> VImage {
        guard !hasAlpha else { return self }
        return try derive("bandjoin_const1") { CVipsShim_bandjoin_const1($0, $1, 255) }
    }

    /// Blurred by a Gaussian of standard deviation `sigma` pixels.
    /// libvips: `vips_gaussblur`.
    public func blurred(sigma: Double) throws(VipsError) -> VImage {
        try derive("gaussblur") { CVipsShim_gaussblur($0, $1, sigma) }
    }
}

extension ImageData {
    /// The first `frames` frames of an animation, each resized to exactly `width` x `height`
    /// (auto-oriented), as one image of `frames` pages; lazy as `thumbnail` is.
    /// - Parameters:
    ///   - header: the header already read by `header(policy:)` (which checked the format).
    ///   - policy: the pixel limit, which counts every frame read.
    ///   - frames: how many frames to read (at least 1, at most the file's).
    ///   - strict: fail on damaged data rather than render what decodes.
    /// - Throws: `ImageInputError` for refused formats and too many pixels in all the frames
    ///   together, `VipsError` (`thumbnail_source`).
    /// libvips: `vips_thumbnail_source` with `n` frames and `size=force` (its size is one
    /// page's: libvips resizes each page alike and sets `page-height`).
    public func animationThumbnail(
        header: ImageHeader, policy: DecodePolicy, frames: Int, width: Int, height: Int, strict: Bool
    ) throws -> VImage {
        try checkPixels(header.width, header.height * frames, policy: policy)
        var output: UnsafeMutablePointer<VipsImage>?
        try withSource { (source) throws(VipsError) in
            try vipsCall("thumbnail_source", file: name) {
                CVipsShim_thumbnail_source(
                    source, &output, Int32(width), Int32(height), VIPS_SIZE_FORCE,
                    "[n=\(frames),fail_on=\(strict ? "warning" : "none")]")
            }
        }
        guard let output else { throw takeVipsError("thumbnail_source", file: name) }
        return VImage(owning: output, origin: name)
    }
}
