internal import CJPEGBridge

#if canImport(Glibc)
    import Glibc
#endif

/// JPEG decode and encode straight through libjpeg-turbo (the C bridge `CJPEGBridge`, whose
/// error manager returns instead of calling `exit()`).
public enum JPEGCodec {
    /// What a JPEG's header says.
    public struct Info: Sendable, Equatable {
        /// Stored size.
        public var width: Int
        public var height: Int
        /// 1 (grey), 3 (YCbCr) or 4 (CMYK, YCCK).
        public var components: Int
        /// Whether the colour space is YCbCr or grey (what the fast path decodes to RGB exactly).
        public var isYCbCrOrGrey: Bool
        /// EXIF orientation 1...8.
        public var orientation: Int
        /// Whether the file is progressive.
        public var progressive: Bool
        /// Whether an ICC profile is embedded, and whether it says it is sRGB.
        public var hasICCProfile: Bool
        public var iccProfileIsSRGB: Bool
        /// Whether that profile's colour space is RGB (Display P3, Adobe RGB, sRGB, ...).
        public var iccProfileIsRGB: Bool

        /// Size once upright (orientations 5-8 swap the axes).
        public var uprightWidth: Int { orientation >= 5 ? height : width }
        public var uprightHeight: Int { orientation >= 5 ? width : height }
    }

    /// libjpeg failed; its own words.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// libjpeg's message.
        public let message: String
        public var description: String { message.isEmpty ? "libjpeg gave no reason" : message }
    }

    /// The text of a NUL-terminated message buffer.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Reads the header of `bytes`, or nil when they are not a JPEG libjpeg can parse.
    public static func info(of bytes: UnsafeRawBufferPointer) -> Info? {
        var info = CJPEGBridge_info()
        var message = [CChar](repeating: 0, count: 200)
        let status = CJPEGBridge_read_info(
            bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &info, &message, message.count)
        guard status == 0 else { return nil }
        // J_COLOR_SPACE: 1 JCS_GRAYSCALE, 2 JCS_RGB, 3 JCS_YCbCr.
        return Info(
            width: Int(info.width), height: Int(info.height), components: Int(info.components),
            isYCbCrOrGrey: info.color_space == 1 || info.color_space == 3, orientation: Int(info.orientation),
            progressive: info.progressive != 0, hasICCProfile: info.has_icc != 0,
            iccProfileIsSRGB: info.icc_is_srgb != 0, iccProfileIsRGB: info.icc_is_rgb != 0)
    }

    /// The embedded ICC profile of `bytes`, or nil when there is none or libjpeg cannot
    /// parse the header.
    public static func iccProfile(of bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        var icc: UnsafeMutablePointer<UInt8>?
        var size: UInt32 = 0
        var message = [CChar](repeating: 0, count: 200)
        guard
            CJPEGBridge_read_icc(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &icc, &size, &message,
                message.count) == 0, let icc
        else { return nil }
        defer { free(icc) }
        return [UInt8](UnsafeBufferPointer(start: icc, count: Int(size)))
    }

    /// Decodes to RGB at 1/`scale` of the stored size (1, 2, 4, 8), stored orientation.
    /// - Parameters:
    ///   - rows: the rows of the scaled image wanted (nil: all).
    ///   - strict: a warning (truncation, corrupt data) anywhere in the file is an error.
    /// - Returns: the pixels, and libjpeg's first warning when not strict and there was one.
    /// - Throws: `Failure` with libjpeg's message.
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, scale: Int, rows: Range<Int>? = nil, strict: Bool
    ) throws(Failure) -> (image: MemoryImage, warning: String?) {
        precondition([1, 2, 4, 8].contains(scale), "JPEGCodec.decode: scale is 1, 2, 4 or 8")
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0
        var height: Int32 = 0
        var warnings: Int32 = 0
        var message = [CChar](repeating: 0, count: 200)
        let status = CJPEGBridge_decode_rgb(
            bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(scale), strict ? 1 : 0,
            Int32(rows?.lowerBound ?? 0), Int32(rows?.count ?? 0), &pixels, &width, &height, &warnings, &message,
            message.count)
        let text = Self.text(message)
        guard status == 0, let pixels, width > 0, height > 0 else {
            free(pixels)
            throw Failure(message: status == 0 ? "no rows decoded" : text)
        }
        defer { free(pixels) }
        let count = Int(width) * Int(height) * 3
        let image = MemoryImage(
            width: Int(width), height: Int(height), pixels: [UInt8](UnsafeBufferPointer(start: pixels, count: count)))
        return (image, warnings > 0 ? text : nil)
    }

    /// Encodes `image` as a baseline JPEG.
    /// - Parameters:
    ///   - quality: 1...100.
    ///   - fullChroma: 4:4:4 (else 4:2:0).
    ///   - optimize: optimised Huffman tables (smaller, slower).
    ///   - dotsPerInch: the JFIF density (0: none).
    ///   - maxBytes: fail rather than write more than this (nil: no bound).
    /// - Throws: `Failure` with libjpeg's message.
    public static func encode(
        _ image: MemoryImage, quality: Int, fullChroma: Bool, optimize: Bool, dotsPerInch: Int = 0,
        maxBytes: Int? = nil
    ) throws(Failure) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 200)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            CJPEGBridge_encode_rgb(
                pixels.baseAddress, Int32(image.width), Int32(image.height), image.stride, Int32(quality),
                fullChroma ? 1 : 0, optimize ? 1 : 0, Int32(dotsPerInch), maxBytes ?? 0, &output, &size, &message,
                message.count)
        }
        return try Self.taking(output, size: size, status: status, message: message)
    }

    /// The CMYK samples of a 4-component JPEG as stored (4 bytes a pixel, not inverted), at
    /// 1/`scale` (1, 2, 4 or 8; libjpeg's DCT scaling), refusing more than `maxPixels`.
    /// - Throws: `Failure` with libjpeg's message (any corrupt-data warning included).
    public static func decodeCMYK(_ data: [UInt8], scale: Int = 1, maxPixels: Int) throws(Failure) -> (
        pixels: [UInt8], width: Int, height: Int
    ) {
        var pixels: UnsafeMutablePointer<UInt8>?
        var width: Int32 = 0
        var height: Int32 = 0
        var message = [CChar](repeating: 0, count: 200)
        let status = data.withUnsafeBufferPointer {
            CJPEGBridge_decode_cmyk(
                $0.baseAddress, $0.count, Int32(scale), maxPixels, &pixels, &width, &height, &message, message.count)
        }
        guard status == 0, let pixels else {
            free(pixels)
            throw Failure(message: Self.text(message))
        }
        defer { free(pixels) }
        let count = Int(width) * Int(height) * 4
        return ([UInt8](UnsafeBufferPointer(start: pixels, count: count)), Int(width), Int(height))
    }

    /// Encodes CMYK pixels (4 bytes each, rows packed, 0 no ink to 255 full ink, as
    /// `ColourTransform.cmyk` gives them) as a baseline JPEG, every plane at full resolution,
    /// stored inverted with the Adobe marker as Adobe's programs do: a PDF places it with
    /// `/Decode [1 0 1 0 1 0 1 0]`.
    /// - Throws: `Failure` with libjpeg's message.
    public static func encodeCMYK(_ pixels: [UInt8], width: Int, height: Int, quality: Int) throws(Failure) -> [UInt8] {
        precondition(pixels.count == width * height * 4, "CMYK pixels must be 4 bytes each")
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 200)
        let status = pixels.withUnsafeBufferPointer { pixels in
            CJPEGBridge_encode_cmyk(
                pixels.baseAddress, Int32(width), Int32(height), Int32(quality), &output, &size, &message,
                message.count)
        }
        return try Self.taking(output, size: size, status: status, message: message)
    }

    /// The encoder's malloc'd output as an array (freed here), or its failure.
    private static func taking(
        _ output: UnsafeMutablePointer<UInt8>?, size: Int, status: Int32, message: [CChar]
    ) throws(Failure) -> [UInt8] {
        defer { free(output) }
        guard status == 0, let output else { throw Failure(message: Self.text(message)) }
        return [UInt8](UnsafeBufferPointer(start: output, count: size))
    }
}
