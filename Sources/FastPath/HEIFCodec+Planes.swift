internal import CHEIFBridge

extension HEIFCodec {
    /// The size of the largest thumbnail the file embeds for its primary image, or nil when
    /// it embeds none (libvips's `thumbnail` starts from it when it covers the size asked).
    /// - Throws: `Failure` with libheif's words.
    public static func thumbnailSize(of bytes: UnsafeRawBufferPointer) throws(Failure) -> (width: Int, height: Int)? {
        var (width, height): (Int32, Int32) = (0, 0)
        var message = [CChar](repeating: 0, count: 300)
        guard
            CHEIFBridge_read_thumbnail_size(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &width, &height, &message,
                message.count) == 0
        else { throw Failure(message: text(message)) }
        return width > 0 && height > 0 ? (Int(width), Int(height)) : nil
    }

    /// The primary image decoded as stored (no rotation, mirror or crop applied) and kept as
    /// its YCbCr planes, read as RGB a row at a time (`row(_:into:)`, libheif's own 8-bit
    /// formula): a 12 MP photo holds 18 MB of planes (libheif's peak while decoding them,
    /// its tiles beside, is about 55 MB) instead of a 36 MB RGB picture and libheif's
    /// conversion beside it. One reader at a time.
    public final class Planes {
        private let planes: OpaquePointer
        /// The stored picture's size.
        public let width: Int
        public let height: Int

        /// Decodes `bytes`' primary image (`bytes` need live only during the call: the planes
        /// are libheif's own buffers, and nothing reads the file's bytes after the decode).
        /// - Returns: nil when it decodes to another layout than 8-bit full-range 4:2:0 YCbCr
        ///   with a matrix libheif converts in fixed point (take libvips's way).
        /// - Throws: `Failure` with libheif's words (a damaged file: libheif decodes all or
        ///   nothing).
        public init?(_ bytes: UnsafeRawBufferPointer) throws(Failure) {
            var (width, height, unsupported): (Int32, Int32, Int32) = (0, 0, 0)
            var message = [CChar](repeating: 0, count: 300)
            let planes = CHEIFBridge_planes_decode(
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &width, &height, &unsupported,
                &message, message.count)
            guard let planes else {
                if unsupported != 0 { return nil }
                throw Failure(message: HEIFCodec.text(message))
            }
            self.planes = planes
            self.width = Int(width)
            self.height = Int(height)
        }

        deinit { CHEIFBridge_planes_free(planes) }

        /// Stored row `y` (0 ..< `height`) as 8-bit RGB: `width` x 3 bytes written at `rgb`.
        public func row(_ y: Int, into rgb: UnsafeMutablePointer<UInt8>) {
            precondition((0..<height).contains(y), "HEIFCodec.Planes: row \(y) of \(height)")
            CHEIFBridge_planes_row(planes, Int32(y), rgb)
        }
    }
}
