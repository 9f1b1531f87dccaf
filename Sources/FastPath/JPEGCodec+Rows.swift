internal import CJPEGBridge

#if canImport(Glibc)
    import Glibc
#endif

extension JPEGCodec {
    /// A JPEG decoded row by row (the streaming fast executor): rows are read in order into
    /// the caller's buffer, skipped rows cost no IDCT, and nothing holds the whole image.
    /// One thread at a time; the encoded bytes must outlive the decoder (`withUnsafeBytes`).
    public final class RowDecoder {
        private let decoder: OpaquePointer
        /// The decoded (scaled) size.
        public let width: Int
        public let height: Int

        /// Starts decoding `bytes` at 1/`scale`; `strict` as for `decode`.
        /// - Throws: `Failure` with libjpeg's message (not a JPEG, unsupported, out of memory).
        public init(_ bytes: UnsafeRawBufferPointer, scale: Int, strict: Bool) throws(Failure) {
            precondition([1, 2, 4, 8].contains(scale), "JPEGCodec.RowDecoder: scale is 1, 2, 4 or 8")
            var (width, height, failed): (Int32, Int32, Int32) = (0, 0, 0)
            guard
                let decoder = CJPEGBridge_decoder_open(
                    bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(scale), strict ? 1 : 0,
                    &width, &height, &failed)
            else { throw Failure(message: "out of memory for a JPEG decoder") }
            guard failed == 0 else {
                let message = String(cString: CJPEGBridge_decoder_message(decoder))
                CJPEGBridge_decoder_close(decoder)
                throw Failure(message: message)
            }
            self.decoder = decoder
            self.width = Int(width)
            self.height = Int(height)
        }

        deinit { CJPEGBridge_decoder_close(decoder) }

        /// Reads the next `count` rows (`width` x 3 bytes each, `stride` apart) into `rows`.
        /// - Returns: the rows read (fewer only at the image's end).
        public func read(into rows: UnsafeMutablePointer<UInt8>, stride: Int, count: Int) throws(Failure) -> Int {
            let read = CJPEGBridge_decoder_read(decoder, rows, stride, Int32(count))
            guard read >= 0 else { throw failure }
            return Int(read)
        }

        /// Skips the next `count` rows.
        public func skip(_ count: Int) throws(Failure) {
            guard CJPEGBridge_decoder_skip(decoder, Int32(count)) == 0 else { throw failure }
        }

        /// Ends the decode (strict: reads the rest, so damage anywhere fails).
        /// - Returns: libjpeg's first warning when not strict and there was one.
        public func finish() throws(Failure) -> String? {
            var warnings: Int32 = 0
            guard CJPEGBridge_decoder_finish(decoder, &warnings) == 0 else { throw failure }
            return warnings > 0 ? String(cString: CJPEGBridge_decoder_message(decoder)) : nil
        }

        private var failure: Failure { Failure(message: String(cString: CJPEGBridge_decoder_message(decoder))) }
    }

    /// A baseline JPEG encoded row by row (the streaming fast executor's print).
    public final class RowEncoder {
        private let encoder: OpaquePointer

        /// Starts a `width` x `height` JPEG; settings as `encode`.
        /// - Throws: `Failure` with libjpeg's message.
        public init(
            width: Int, height: Int, quality: Int, fullChroma: Bool, optimize: Bool, dotsPerInch: Int = 0,
            maxBytes: Int? = nil
        ) throws(Failure) {
            var failed: Int32 = 0
            guard
                let encoder = CJPEGBridge_encoder_open(
                    Int32(width), Int32(height), Int32(quality), fullChroma ? 1 : 0, optimize ? 1 : 0,
                    Int32(dotsPerInch), maxBytes ?? 0, &failed)
            else { throw Failure(message: "out of memory for a JPEG encoder") }
            guard failed == 0 else {
                let message = String(cString: CJPEGBridge_encoder_message(encoder))
                CJPEGBridge_encoder_close(encoder)
                throw Failure(message: message)
            }
            self.encoder = encoder
        }

        deinit { CJPEGBridge_encoder_close(encoder) }

        /// Writes the next `count` rows from `rows` (`stride` bytes apart).
        public func write(_ rows: UnsafePointer<UInt8>, stride: Int, count: Int) throws(Failure) {
            guard CJPEGBridge_encoder_write(encoder, rows, stride, Int32(count)) == 0 else {
                throw Failure(message: String(cString: CJPEGBridge_encoder_message(encoder)))
            }
        }

        /// Ends the encode.
        /// - Returns: the JPEG's bytes.
        public func finish() throws(Failure) -> [UInt8] {
            var output: UnsafeMutablePointer<UInt8>?
            var size = 0
            guard CJPEGBridge_encoder_finish(encoder, &output, &size) == 0, let output else {
                throw Failure(message: String(cString: CJPEGBridge_encoder_message(encoder)))
            }
            defer { free(output) }
            return [UInt8](UnsafeBufferPointer(start: output, count: size))
        }
    }
}
