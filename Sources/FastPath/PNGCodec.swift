internal import CPNGBridge

#if canImport(Glibc)
    import Glibc
#endif

/// PNG encoding straight through libpng (the C bridge `CPNGBridge`, whose error handlers
/// return instead of aborting): the fast path's small images and thumbnails, without libvips.
public enum PNGCodec {
    /// libpng failed; its own words.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// libpng's message.
        public let message: String
        public var description: String { message.isEmpty ? "libpng gave no reason" : message }
    }

    /// The row filters the encoder may choose from (libpng picks per row among those allowed).
    public enum Filters: Sendable, Hashable {
        /// No filtering (libvips 8.14's `pngsave` default).
        case none
        /// Paeth only.
        case paeth
        /// All five; libpng picks per row by the smallest sum of absolute differences.
        case adaptive

        var flags: Int32 {
            switch self {
            case .none: Int32(CPNGBridge_filter_none)
            case .paeth: Int32(CPNGBridge_filter_paeth)
            case .adaptive: Int32(CPNGBridge_filter_all)
            }
        }
    }

    /// The zlib level and row filters the fast path writes with, chosen by measurement on the
    /// corpus's 200 px images (benchmarks/RESULTS.md, "PNG without libvips"): level 1 with
    /// Paeth is 0.80x the bytes of libvips's default (level 6, no filter) in 0.53x the time;
    /// adaptive filters or higher levels save 1 to 5 % more bytes for 1.2 to 13 times the time.
    public static let defaultLevel = 1
    public static let defaultFilters = Filters.paeth

    /// Encodes `image` as an 8-bit RGB PNG, non-interlaced, without metadata chunks.
    /// - Parameters:
    ///   - level: zlib level 0...9.
    ///   - filters: the row filters allowed.
    /// - Throws: `Failure` with libpng's message.
    public static func encode(
        _ image: MemoryImage, level: Int = defaultLevel, filters: Filters = defaultFilters
    ) throws(Failure) -> [UInt8] {
        precondition((0...9).contains(level), "PNGCodec.encode: zlib level 0...9")
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: 200)
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            CPNGBridge_encode_rgb(
                pixels.baseAddress, Int32(image.width), Int32(image.height), image.stride, Int32(level), filters.flags,
                &output, &size, &message, message.count)
        }
        guard status == 0, let output else {
            free(output)
            throw Failure(
                message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { free(output) }
        return [UInt8](UnsafeBufferPointer(start: output, count: size))
    }
}
