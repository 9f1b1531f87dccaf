internal import CHEIFBridge

#if canImport(Glibc)
    import Glibc
#endif

/// An HEIF photo's (an iPhone's HEIC) primary image decoded straight through libheif (the C
/// bridge `CHEIFBridge`; libheif is opened on first use): the same pixels libvips's
/// `heifload` gets from the same library, without its copy of the whole picture.
public enum HEIFCodec {
    /// What an HEIF file's primary image is.
    public struct Info: Sendable, Equatable {
        /// Upright size (after the file's rotation and mirroring).
        public var width: Int
        public var height: Int
        /// Luma bits per pixel (8 for an iPhone's photo).
        public var bits: Int
        /// Whether it has an alpha channel.
        public var hasAlpha: Bool
        /// Whether it carries an ICC profile.
        public var hasICCProfile: Bool
    }

    /// libheif failed, or could not be opened; its own words.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// libheif's (or the loader's) message.
        public let message: String
        public var description: String { message.isEmpty ? "libheif gave no reason" : message }
    }

    /// The text of a NUL-terminated message buffer.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether libheif can be opened in this process (it is, if so).
    public static var isAvailable: Bool {
        var message = [CChar](repeating: 0, count: 300)
        return CHEIFBridge_available(&message, message.count) == 0
    }

    /// Reads the primary image's header of `bytes`.
    /// - Throws: `Failure` with libheif's words when the bytes are not an HEIF it can parse.
    public static func info(of bytes: UnsafeRawBufferPointer) throws(Failure) -> Info {
        var info = CHEIFBridge_info()
        var message = [CChar](repeating: 0, count: 300)
        guard
            CHEIFBridge_read_info(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &info, &message, message.count)
                == 0
        else { throw Failure(message: text(message)) }
        return Info(
            width: Int(info.width), height: Int(info.height), bits: Int(info.bits), hasAlpha: info.has_alpha != 0,
            hasICCProfile: info.has_icc != 0)
    }

    /// The primary image's ICC profile, or nil when it has none.
    /// - Throws: `Failure` with libheif's words.
    public static func iccProfile(of bytes: UnsafeRawBufferPointer) throws(Failure) -> [UInt8]? {
        var icc: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 300)
        guard
            CHEIFBridge_read_icc(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &icc, &size, &message,
                message.count) == 0
        else { throw Failure(message: text(message)) }
        guard let icc else { return nil }
        defer { free(icc) }
        return [UInt8](UnsafeBufferPointer(start: icc, count: size))
    }

    /// The EXIF orientation (1, 3, 6 or 8) that turns the stored picture upright, as its
    /// `irot` properties say; nil when only libheif's own transformations give the upright
    /// picture (a mirror, a crop, or boxes it cannot read).
    public static func turn(of bytes: UnsafeRawBufferPointer) -> Int? {
        let turn = CHEIFBridge_read_turn(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
        return turn == 0 ? nil : Int(turn)
    }

    /// Decodes the primary image to 8-bit RGB, upright: `info`'s size. With a `turn` (from
    /// `turn(of:)`) libheif's transformations are skipped and the stored picture is turned
    /// by the fast path's orientation kernel as it leaves libheif (faster than libheif's
    /// rotation, and no copy between); without, libheif makes it upright.
    /// - Throws: `Failure` with libheif's words (libheif decodes all or nothing: a damaged
    ///   file is an error, as it is on libvips's path).
    public static func decode(_ bytes: UnsafeRawBufferPointer, info: Info, turn: Int?) throws(Failure) -> MemoryImage {
        let (width, height) = (info.width, info.height)
        let (storedWidth, storedHeight) = (turn ?? 1) >= 5 ? (height, width) : (width, height)
        var message = [CChar](repeating: 0, count: 300)
        var status: Int32 = 0
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 3) { buffer, count in
            status = CHEIFBridge_decode(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(turn ?? 0),
                buffer.baseAddress, Int32(storedWidth), Int32(storedHeight), width * 3, &message, message.count)
            // On failure the buffer may be partly written: initialise it so the array is valid.
            if status != 0 { buffer.initialize(repeating: 0) }
            count = width * height * 3
        }
        guard status == 0 else { throw Failure(message: text(message)) }
        return MemoryImage(width: width, height: height, pixels: pixels)
    }
}
