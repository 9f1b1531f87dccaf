internal import CVips
internal import CVipsShim
import ImageCore

extension ImageData {
    /// Resizes to exactly `width` x `height` with shrink-on-load and EXIF auto-orient.
    ///
    /// The result is lazy: pixels are decoded when it is computed (`inMemory`, `encoded`),
    /// so decode errors surface then. The header is checked against `policy` first.
    /// - Parameters:
    ///   - policy: accepted formats and the pixel limit, enforced before any decoding.
    ///   - width: output width in pixels (the upright image's).
    ///   - height: output height in pixels.
    ///   - strict: fail on damaged data (`fail_on=warning`: libjpeg reports truncation and
    ///     corrupt segments as warnings) rather than render what decodes.
    /// - Throws: `ImageInputError` when the bytes are not an accepted raster format (SVG and
    ///   the other untrusted formats never reach a loader) or declare too many pixels,
    ///   `VipsError` (`thumbnail_source`).
    /// libvips: `vips_thumbnail_source` with `size=force`.
    public func thumbnail(policy: DecodePolicy, width: Int, height: Int, strict: Bool) throws -> VImage {
        _ = try header(policy: policy)
        var output: UnsafeMutablePointer<VipsImage>?
        try withSource { (source) throws(VipsError) in
            try vipsCall("thumbnail_source", file: name) {
                CVipsShim_thumbnail_source(
                    source, &output, Int32(width), Int32(height), VIPS_SIZE_FORCE,
                    strict ? "[fail_on=warning]" : "[fail_on=none]")
            }
        }
        guard let output else { throw takeVipsError("thumbnail_source", file: name) }
        return VImage(owning: output, origin: name)
    }

    /// Decodes the whole image lazily, for pipelines that crop or place it.
    /// - Parameters:
    ///   - policy: accepted formats and the pixel limit, enforced before any decoding.
    ///   - strict: fail on damaged data rather than render what decodes.
    ///   - autoOrient: turn the image upright from its EXIF orientation (default).
    ///   - sequential: read once from top to bottom (`access=sequential`), keeping only the
    ///     rows in use, for a caller that takes one box of the image into memory: libvips
    ///     otherwise decodes a random-access image whole on first use. A photo stored turned
    ///     (EXIF 2-8) is read randomly all the same: turning it upright needs every row.
    /// - Throws: `ImageInputError` when the bytes are not an accepted raster format or
    ///   declare too many pixels, `VipsError` (`image_new_from_source`, `autorot`).
    public func decode(
        policy: DecodePolicy = .default, strict: Bool, autoOrient: Bool = true, sequential: Bool = false
    ) throws -> VImage {
        _ = try acceptedFormat(of: policy.formats)
        let image = try opened(sequential: sequential, failOn: strict ? VIPS_FAIL_ON_WARNING : VIPS_FAIL_ON_NONE)
        try checkPixels(image.width, image.height, policy: policy)
        return autoOrient ? try image.autoOriented() : image
    }

    /// The bytes opened sequentially when asked and the image is stored upright, else randomly.
    private func opened(sequential: Bool, failOn: VipsFailOn, options: String = "") throws(VipsError) -> VImage {
        if sequential {
            let image = try openImage(access: VIPS_ACCESS_SEQUENTIAL, failOn: failOn, options: options)
            if image.orientation == 1 { return image }
        }
        return try openImage(access: VIPS_ACCESS_RANDOM, failOn: failOn, options: options)
    }

    /// Decodes, auto-oriented, at the smallest JPEG DCT scale (1/2, 1/4, 1/8) that is still
    /// at least `width` x `height` (upright), like Pillow's `draft`; other formats at full size.
    ///
    /// libvips's `thumbnail` keeps a factor of two above the target when it shrinks on load,
    /// so a 12 MP photo for a 1500 px window is decoded whole; the DCT-domain shrink is an
    /// exact scaled IDCT, and the Lanczos resize after it does the rest.
    /// - Throws: `ImageInputError` for refused formats and over-limit sizes, `VipsError`
    ///   naming this input.
    /// libvips: `vips_image_new_from_source` with `shrink`, `vips_autorot`.
    /// - Parameter sequential: as for `decode(policy:strict:autoOrient:sequential:)`.
    public func decode(
        policy: DecodePolicy = .default, strict: Bool, atLeast width: Int, height: Int, sequential: Bool = false
    ) throws -> VImage {
        let failOn = strict ? VIPS_FAIL_ON_WARNING : VIPS_FAIL_ON_NONE
        guard let shrink = try loadShrink(policy: policy, atLeast: width, height: height) else {
            return try decode(policy: policy, strict: strict, sequential: sequential)
        }
        return try opened(sequential: sequential, failOn: failOn, options: "[shrink=\(shrink)]").autoOriented()
    }

    /// The DCT scale (1, 2, 4 or 8) `decode(policy:strict:atLeast:height:)` decodes a JPEG at
    /// for `width` x `height` (upright); nil for other formats, which decode at full size.
    /// - Throws: as `decode`, for a refused format or size.
    public func loadShrink(policy: DecodePolicy = .default, atLeast width: Int, height: Int) throws -> Int? {
        let format = try acceptedFormat(of: policy.formats)
        guard format == .jpeg else { return nil }
        let header = try openImage(access: VIPS_ACCESS_SEQUENTIAL, failOn: VIPS_FAIL_ON_NONE)
        try checkPixels(header.width, header.height, policy: policy)
        let swapped = header.orientation >= 5
        let (neededWidth, neededHeight) = swapped ? (height, width) : (width, height)
        var shrink = 1
        while shrink < 8 && header.width / (shrink * 2) >= neededWidth && header.height / (shrink * 2) >= neededHeight {
            shrink *= 2
        }
        return shrink
    }
}

extension ImageData {
    /// Refuses a header that declares more pixels than `policy` allows.
    func checkPixels(_ width: Int, _ height: Int, policy: DecodePolicy) throws(ImageInputError) {
        guard width * height <= policy.maxPixels else {
            throw .tooManyPixels(file: name, width: width, height: height, limit: policy.maxPixels)
        }
    }
}

extension VImage {
    /// Turns the image upright from its EXIF orientation and drops the tag.
    /// libvips: `vips_autorot`.
    public func autoOriented() throws(VipsError) -> VImage {
        guard orientation != 1 else { return self }
        return try derive("autorot") { CVipsShim_autorot($0, $1) }
    }

    /// Reduces to exactly `width` x `height` with Lanczos3 alone (no box pre-shrink, which
    /// `resized` adds for factors of 4 and more), as the fast path's resampler does.
    /// libvips: `vips_reduce`.
    public func reduced(toWidth width: Int, height: Int) throws(VipsError) -> VImage {
        let (across, down) = (Double(self.width) / Double(width), Double(self.height) / Double(height))
        return try derive("reduce") { CVipsShim_reduce($0, $1, across, down) }.exactly(width: width, height: height)
    }

    /// Resizes by `scale` horizontally and `verticalScale` vertically: Lanczos3 when it
    /// reduces; when it enlarges both ways, a bicubic enlargement aligned on pixel centres,
    /// to exactly round(size x scale) pixels.
    ///
    /// libvips 8.14's `resize` enlarges with an affine whose input is displaced by half a
    /// pixel: the picture lands half a pixel down and right of where a centre-aligned
    /// resampler (Pillow, ImageMagick, libvips's own reducers, cardrender's fast path) puts
    /// it, measured as a mean difference of 5.3 against 1.6 on a 1800x1200 photo enlarged
    /// 3 % (FastPathTests). `affine` itself maps output x to input x / scale (pixel corners
    /// aligned), so the input is displaced by 1/2 - 1/(2 scale) to align pixel centres.
    /// libvips: `vips_resize`, or `vips_affine` (bicubic, extend copy) when enlarging.
    public func resized(scale: Double, verticalScale: Double? = nil) throws(VipsError) -> VImage {
        let vertical = verticalScale ?? scale
        guard scale >= 1 && vertical >= 1 else {
            return try derive("resize") { CVipsShim_resize($0, $1, scale, vertical) }
        }
        let width = max(1, Int((Double(self.width) * scale).rounded()))
        let height = max(1, Int((Double(self.height) * vertical).rounded()))
        return try derive("affine") {
            CVipsShim_affine_bicubic($0, $1, scale, vertical, 0.5 - 0.5 / scale, 0.5 - 0.5 / vertical)
        }
        .exactly(width: width, height: height)
    }
}
