internal import CVips
internal import CVipsShim
import ImageCore

/// What an image's header says, read without decoding any pixel.
public struct ImageHeader: Sendable, Equatable {
    /// The format recognised from the content.
    public let format: InputFormat
    /// Stored width in pixels (before EXIF orientation).
    public let width: Int
    /// Stored height in pixels (before EXIF orientation).
    public let height: Int
    /// EXIF orientation 1...8 (1 when absent).
    public let orientation: Int
    /// The frames of an animated GIF or WebP; 1 for a still image and every other format
    /// (a multi-page TIFF or a HEIC's other images are not an animation).
    public var pages = 1

    /// Width once auto-oriented (orientations 5-8 swap the axes).
    public var uprightWidth: Int { orientation >= 5 ? height : width }
    /// Height once auto-oriented.
    public var uprightHeight: Int { orientation >= 5 ? width : height }
}

extension ImageData {
    /// Identifies the format from the content and reads the header, enforcing `policy`.
    ///
    /// Nothing is decoded: a 40000x40000 "pixel bomb" is refused here, in microseconds.
    /// - Parameter policy: accepted formats and the pixel limit.
    /// - Throws: `ImageInputError` for unknown or refused formats and over-limit sizes;
    ///   `VipsError` (`image_new_from_source`) for a header libvips cannot parse.
    /// libvips: `vips_foreign_find_load_source`, `vips_image_new_from_source`.
    public func header(policy: DecodePolicy = .default) throws -> ImageHeader {
        let format = try acceptedFormat(of: policy.formats)
        let image = try openImage(access: VIPS_ACCESS_SEQUENTIAL, failOn: VIPS_FAIL_ON_NONE)
        var header = ImageHeader(
            format: format, width: image.width, height: image.height, orientation: image.orientation)
        if format == .gif || format == .webp { header.pages = image.pages }
        try checkPixels(header.width, header.height, policy: policy)
        return header
    }

    /// A header another reader found in these bytes (the fast path's libjpeg), under the
    /// checks `header(policy:)` makes: the format accepted by `policy`, the pixel limit.
    /// libvips is not opened.
    /// - Parameter loader: the libvips loader that reads such bytes (`jpegload_source`),
    ///   named when `policy` refuses the format, as `header(policy:)` names it.
    /// - Throws: `ImageInputError.unsupportedFormat` or `.tooManyPixels`.
    public func header(
        format: InputFormat, loader: String, width: Int, height: Int, orientation: Int, policy: DecodePolicy
    ) throws(ImageInputError) -> ImageHeader {
        guard policy.formats.contains(format) else { throw .unsupportedFormat(file: name, loader: loader) }
        try checkPixels(width, height, policy: policy)
        return ImageHeader(format: format, width: width, height: height, orientation: orientation)
    }

    /// The format recognised from the content, if it is one of `formats`.
    /// - Throws: `ImageInputError.unrecognised` or `.unsupportedFormat`; `VipsError` when
    ///   libvips cannot be opened (cardrender's environment, not the input).
    /// libvips: `vips_foreign_find_load_source` (reads the first bytes only).
    func acceptedFormat(of formats: Set<InputFormat>) throws -> InputFormat {
        try Vips.requireLoaded()
        return try withSource { source throws(ImageInputError) in
            guard let loader = vips_foreign_find_load_source(source) else {
                // libvips has put "source is not in a known format" in its process-wide error
                // buffer. It is not cleared here: that would wipe the text of another worker's
                // failure before it is read. `takeVipsError` leaves such lines out.
                throw .unrecognised(file: name)
            }
            let nickname = String(cString: loader)
            guard let format = InputFormat(loader: nickname), formats.contains(format) else {
                throw .unsupportedFormat(file: name, loader: nickname)
            }
            return format
        }
    }

    /// Opens the bytes as a lazy image (header parsed, pixels decoded on demand).
    func openImage(access: VipsAccess, failOn: VipsFailOn, options: String = "") throws(VipsError) -> VImage {
        try Vips.requireLoaded()
        let image = withSource { source in
            CVipsShim_image_new_from_source(source, options, access, failOn)
        }
        guard let image else { throw takeVipsError("image_new_from_source", file: name) }
        return VImage(owning: image, origin: name)
    }
}
