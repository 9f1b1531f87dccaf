internal import CVips
internal import CVipsShim

/// An immutable libvips image: owns one GObject reference and drops it on `deinit`.
///
/// `@unchecked Sendable` is safe here: a `VipsImage` is never mutated once built
/// (every operation returns a new image; libvips documents images as immutable and
/// shareable between threads in `using-threads`), and GObject reference counting is
/// atomic, so the only state this class holds, one counted reference, may be released
/// from any thread. The raw pointer never leaves `withPointer`.
public final class VImage: @unchecked Sendable {
    private let pointer: UnsafeMutablePointer<VipsImage>
    /// The file or input name this image came from, carried into every error.
    public let origin: String?

    /// Takes ownership of one reference to `pointer`.
    init(owning pointer: UnsafeMutablePointer<VipsImage>, origin: String?) {
        self.pointer = pointer
        self.origin = origin
    }

    deinit {
        g_object_unref(pointer)
    }

    /// Lends the C pointer for the duration of `body`, keeping `self` alive meanwhile.
    func withPointer<T, E: Error>(
        _ body: (UnsafeMutablePointer<VipsImage>) throws(E) -> T
    ) throws(E) -> T {
        try withExtendedLifetime(self) { () throws(E) -> T in try body(pointer) }
    }

    /// Runs a libvips operation that outputs one image, and wraps the result.
    /// - Parameters:
    ///   - operation: libvips nickname, for errors.
    ///   - body: the C call, given this image and the output slot.
    /// - Throws: `VipsError` naming the operation and `origin`.
    func derive(
        _ operation: String,
        _ body: (UnsafeMutablePointer<VipsImage>, UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32
    ) throws(VipsError) -> VImage {
        var output: UnsafeMutablePointer<VipsImage>?
        try withPointer { (input) throws(VipsError) in
            try vipsCall(operation, file: origin) { body(input, &output) }
        }
        guard let output else { throw takeVipsError(operation, file: origin) }
        return VImage(owning: output, origin: origin)
    }

    /// Width in pixels.
    public var width: Int { withPointer { Int(vips_image_get_width($0)) } }
    /// Height in pixels.
    public var height: Int { withPointer { Int(vips_image_get_height($0)) } }
    /// Number of bands (1 grey, 2 grey + alpha, 3 RGB, 4 RGBA or CMYK).
    public var bands: Int { withPointer { Int(vips_image_get_bands($0)) } }
    /// Whether the last band is alpha (`vips_image_hasalpha`).
    public var hasAlpha: Bool { withPointer { vips_image_hasalpha($0) != 0 } }
    /// The pixel format of one band (libvips's `VipsBandFormat`).
    var bandFormat: VipsBandFormat { withPointer { vips_image_get_format($0) } }
    /// How the bands are to be read (libvips's `VipsInterpretation`: sRGB, B_W, CMYK, ...).
    var interpretation: VipsInterpretation {
        withPointer { vips_image_get_interpretation($0) }
    }
    /// Whether each band holds 8-bit unsigned values (0...255).
    public var isEightBit: Bool { bandFormat == VIPS_FORMAT_UCHAR }
    /// The EXIF orientation tag, 1 (upright) when there is none.
    public var orientation: Int { withPointer { Int(vips_image_get_orientation($0)) } }
    /// Horizontal resolution in pixels per millimetre (libvips's unit).
    public var xResolution: Double { withPointer { vips_image_get_xres($0) } }
    /// Vertical resolution in pixels per millimetre (libvips's unit).
    public var yResolution: Double { withPointer { vips_image_get_yres($0) } }

    /// Whether an ICC profile is attached.
    public var hasICCProfile: Bool {
        withPointer { vips_image_get_typeof($0, VIPS_META_ICC_NAME) != 0 }
    }

    /// Names of all metadata fields (EXIF, XMP, ICC, ...), for checking what an encode keeps.
    public var metadataFields: [String] {
        withPointer { image in
            guard let fields = vips_image_get_fields(image) else { return [] }
            defer { g_strfreev(fields) }
            var names: [String] = []
            var index = 0
            while let field = fields[index] {
                names.append(String(cString: field))
                index += 1
            }
            return names
        }
    }
}
