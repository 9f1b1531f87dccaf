internal import CPixelKernels

extension PixelKernels {
    /// A resampling done row by row with the same bytes as `resample` (a ring of rows sized
    /// to the filter instead of whole-image intermediates): push the source rows it asks
    /// for, pull output rows as they become ready. One thread at a time.
    public final class Stream {
        private let stream: OpaquePointer
        /// The source's width and the output's size.
        public let sourceWidth: Int
        public let width: Int
        public let height: Int

        /// Plans `box` (source pixels, fractions allowed) of a `sourceWidth` x `sourceHeight`
        /// source to `width` x `height`, as `resample` would.
        public init(
            sourceWidth: Int, sourceHeight: Int, box: (x: Double, y: Double, width: Double, height: Double), width: Int,
            height: Int
        ) {
            guard
                let stream = CPixelKernels_stream_make(
                    Int32(sourceWidth), Int32(sourceHeight), box.x, box.y, box.width, box.height, Int32(width),
                    Int32(height))
            else { fatalError("PixelKernels.Stream: out of memory for a \(width)x\(height) plan") }
            self.stream = stream
            self.sourceWidth = sourceWidth
            self.width = width
            self.height = height
        }

        deinit { CPixelKernels_stream_free(stream) }

        /// The source row wanted next, or nil when the stream has every row it reads.
        public var nextInput: Int? {
            let row = CPixelKernels_stream_next_input(stream)
            return row < 0 ? nil : Int(row)
        }

        /// Gives the stream source row `nextInput` (`sourceWidth` x 3 bytes).
        public func push(_ row: UnsafePointer<UInt8>) {
            CPixelKernels_stream_push(stream, row)
        }

        /// Writes the next output row (`width` x 3 bytes) into `row` when it is ready.
        /// - Returns: whether a row was written.
        public func pull(into row: UnsafeMutablePointer<UInt8>) -> Bool {
            CPixelKernels_stream_pull(stream, row) == 1
        }
    }

    /// The colour effect's tables for one image size, applied band by band (same bytes as
    /// `colour` on the whole image).
    public final class ColourPlan {
        private let plan: OpaquePointer
        /// The image's width.
        public let width: Int

        /// The effect (as `colour`) for a `width` x `height` image.
        public init(width: Int, height: Int, matrix: [Double], contrast: Double, lift: Double, vignette: Double) {
            precondition(matrix.count == 9, "PixelKernels.ColourPlan: a 3 x 3 matrix")
            guard
                let plan = matrix.withUnsafeBufferPointer({ values in
                    CPixelKernels_colour_plan_make(
                        Int32(width), Int32(height), values.baseAddress, contrast, lift, vignette)
                })
            else { fatalError("PixelKernels.ColourPlan: out of memory for a \(width)x\(height) image") }
            self.plan = plan
            self.width = width
        }

        deinit { CPixelKernels_colour_plan_free(plan) }

        /// The effect on `rows` rows at `pixels` (`stride` apart), the first being image row `first`.
        public func apply(_ pixels: UnsafeMutablePointer<UInt8>, stride: Int, first: Int, rows: Int) {
            CPixelKernels_colour_apply(plan, pixels, stride, Int32(first), Int32(rows))
        }
    }

    /// `colour` laid over `rows` rows at `pixels` where `alpha` is opaque (row by row; same
    /// bytes as `blend`).
    public static func blend(
        _ pixels: UnsafeMutablePointer<UInt8>, colour: UnsafePointer<UInt8>, alpha: UnsafePointer<UInt8>, width: Int,
        rows: Int
    ) {
        CPixelKernels_blend(pixels, width * 3, colour, width * 3, alpha, width, Int32(width), Int32(rows))
    }
}
