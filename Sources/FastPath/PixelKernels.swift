internal import CPixelKernels

/// The fast path's pixel operations on `MemoryImage`s, over the C kernels (`CPixelKernels`:
/// AVX2 where the CPU has it, picked at load time; every target writes the same bytes).
public enum PixelKernels {
    /// The instruction sets the kernels are built for.
    public enum Target: Int, Sendable, CaseIterable, CustomStringConvertible {
        /// x86-64 baseline (SSE2): what every x86-64 CPU runs.
        case baseline = 0
        /// AVX2 (Haswell and later).
        case avx2 = 1

        public var description: String { self == .baseline ? "baseline" : "avx2" }
    }

    /// The target the kernels run on now (the CPU's best unless forced).
    public static var target: Target {
        Target(rawValue: Int(CPixelKernels_current_target().rawValue)) ?? .baseline
    }

    /// Makes every kernel, on every thread, run on `target` (nil: the CPU's best). The bytes
    /// do not change (integer arithmetic); this is for tests and benchmarks to prove it.
    /// - Returns: false when this CPU cannot run `target`.
    @discardableResult
    public static func force(_ target: Target?) -> Bool {
        CPixelKernels_set_target(Int32(target?.rawValue ?? -1)) == 0
    }

    /// The source box `box` (in source pixels, fractions allowed) resampled to exactly
    /// `width` x `height` with Lanczos3, in one separable pass per axis: a crop and a resize
    /// at once, enlarging or reducing.
    public static func resample(
        _ image: MemoryImage, box: (x: Double, y: Double, width: Double, height: Double), width: Int, height: Int
    ) -> MemoryImage {
        var xAxis = CPixelKernels_axis()
        var yAxis = CPixelKernels_axis()
        guard CPixelKernels_axis_make(&xAxis, Int32(image.width), box.x, box.width, Int32(width)) == 0,
            CPixelKernels_axis_make(&yAxis, Int32(image.height), box.y, box.height, Int32(height)) == 0
        else { fatalError("PixelKernels.resample: out of memory for a \(width)x\(height) plan") }
        defer {
            CPixelKernels_axis_free(&xAxis)
            CPixelKernels_axis_free(&yAxis)
        }
        // The source rows the vertical pass reads.
        var firstRow = Int.max
        var endRow = 0
        for index in 0..<height {
            firstRow = min(firstRow, Int(yAxis.first[index]))
            endRow = max(endRow, Int(yAxis.first[index] + yAxis.count[index]))
        }
        var output = [UInt8](repeating: 0, count: width * height * 3)
        if 2 * height <= endRow - firstRow {
            // Halving the rows or more: the vertical pass first (it vectorises over whole
            // rows), so the costlier horizontal pass runs on `height` rows only. (Below that
            // the order is kept: the 8-bit rounding between the passes then matches libvips's
            // reducers, which the general path uses, more closely.)
            var down = [UInt8](repeating: 0, count: image.stride * height)
            let status = image.pixels.withUnsafeBufferPointer { source in
                down.withUnsafeMutableBufferPointer { target in
                    CPixelKernels_resample_columns(
                        source.baseAddress! + firstRow * image.stride, image.stride, Int32(firstRow),
                        Int32(image.width), target.baseAddress, image.stride, &yAxis)
                }
            }
            precondition(status == 0, "PixelKernels.resample: out of memory for a \(width)x\(height) plan")
            down.withUnsafeBufferPointer { source in
                output.withUnsafeMutableBufferPointer { target in
                    CPixelKernels_resample_rows(
                        source.baseAddress, image.stride, Int32(height), target.baseAddress, width * 3, &xAxis)
                }
            }
            return MemoryImage(width: width, height: height, pixels: output)
        }
        // Otherwise the horizontal pass first, on the rows the vertical pass reads.
        var across = [UInt8](repeating: 0, count: width * 3 * (endRow - firstRow))
        image.pixels.withUnsafeBufferPointer { source in
            across.withUnsafeMutableBufferPointer { target in
                CPixelKernels_resample_rows(
                    source.baseAddress! + firstRow * image.stride, image.stride, Int32(endRow - firstRow),
                    target.baseAddress, width * 3, &xAxis)
            }
        }
        let status = across.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                CPixelKernels_resample_columns(
                    source.baseAddress, width * 3, Int32(firstRow), Int32(width), target.baseAddress, width * 3, &yAxis)
            }
        }
        precondition(status == 0, "PixelKernels.resample: out of memory for a \(width)x\(height) plan")
        return MemoryImage(width: width, height: height, pixels: output)
    }

    /// The whole image resampled to `width` x `height`.
    public static func resize(_ image: MemoryImage, width: Int, height: Int) -> MemoryImage {
        resample(
            image, box: (0, 0, Double(image.width), Double(image.height)), width: width, height: height)
    }

    /// Turned upright from an EXIF orientation (1...8); 6 is a quarter turn clockwise, 3 a
    /// half turn, 8 three quarters.
    public static func oriented(_ image: MemoryImage, _ orientation: Int) -> MemoryImage {
        guard orientation != 1 else { return image }
        let swapped = orientation >= 5
        let width = swapped ? image.height : image.width
        let height = swapped ? image.width : image.height
        // Every byte is written by the kernel: no zero-fill first.
        let output = [UInt8](unsafeUninitializedCapacity: image.pixels.count) { target, count in
            image.pixels.withUnsafeBufferPointer { source in
                CPixelKernels_orient(
                    source.baseAddress, image.stride, Int32(image.width), Int32(image.height), Int32(orientation),
                    target.baseAddress, width * 3)
            }
            count = image.pixels.count
        }
        return MemoryImage(width: width, height: height, pixels: output)
    }

    /// A colour matrix (3 x 3, row by row), then contrast and lift, then a vignette; clipped
    /// and truncated to 8 bits, in fixed point (see `CPixelKernels_colour`).
    public static func colour(
        _ image: inout MemoryImage, matrix: [Double], contrast: Double = 1, lift: Double = 0, vignette: Double = 0
    ) {
        precondition(matrix.count == 9, "PixelKernels.colour: a 3 x 3 matrix")
        let (width, height, stride) = (image.width, image.height, image.stride)
        image.pixels.withUnsafeMutableBufferPointer { pixels in
            matrix.withUnsafeBufferPointer { values in
                let status = CPixelKernels_colour(
                    pixels.baseAddress, stride, Int32(width), Int32(height), values.baseAddress, contrast, lift,
                    vignette)
                precondition(status == 0, "PixelKernels.colour: out of memory for a \(width)-wide image")
            }
        }
    }

    /// `colour` laid over `image` where `alpha` (one byte a pixel, same size) is opaque.
    public static func blend(_ image: inout MemoryImage, colour: MemoryImage, alpha: [UInt8]) {
        precondition(
            colour.width == image.width && colour.height == image.height && alpha.count == image.width * image.height,
            "PixelKernels.blend: the art is the card's size")
        let (width, height, stride) = (image.width, image.height, image.stride)
        image.pixels.withUnsafeMutableBufferPointer { card in
            colour.pixels.withUnsafeBufferPointer { paint in
                alpha.withUnsafeBufferPointer { mask in
                    CPixelKernels_blend(
                        card.baseAddress, stride, paint.baseAddress, colour.stride, mask.baseAddress, width,
                        Int32(width), Int32(height))
                }
            }
        }
    }

    /// The image halved `times` times (each a 2 x 2 box mean, rounded; an odd edge's pixels
    /// averaged with their one neighbour): a level of a decode pyramid, `(width + 1) / 2`
    /// wide after one halving.
    public static func halved(_ image: MemoryImage, times: Int = 1) -> MemoryImage {
        var level = image
        for _ in 0..<max(0, times) {
            let (width, height) = ((level.width + 1) / 2, (level.height + 1) / 2)
            let output = [UInt8](unsafeUninitializedCapacity: width * height * 3) { target, count in
                level.pixels.withUnsafeBufferPointer { source in
                    CPixelKernels_halve(
                        source.baseAddress, level.stride, Int32(level.width), Int32(level.height), target.baseAddress,
                        width * 3)
                }
                count = width * height * 3
            }
            level = MemoryImage(width: width, height: height, pixels: output)
        }
        return level
    }

    /// A `width` x `height` image sampled bilinearly from `image` along an affine map: output
    /// pixel (x, y) reads the source at (`inverse.a` x + `inverse.b` y + `inverse.c`,
    /// `inverse.d` x + `inverse.e` y + `inverse.f`), in pixel indices (centres at whole
    /// coordinates); outside the source is `background` (see `CPixelKernels_turn`).
    public static func turned(
        _ image: MemoryImage, width: Int, height: Int,
        inverse: (a: Double, b: Double, c: Double, d: Double, e: Double, f: Double), background: [UInt8]
    ) -> MemoryImage {
        precondition(background.count == 3, "PixelKernels.turned: an RGB background")
        let matrix = [inverse.a, inverse.b, inverse.c, inverse.d, inverse.e, inverse.f]
        let output = [UInt8](unsafeUninitializedCapacity: width * height * 3) { target, count in
            image.pixels.withUnsafeBufferPointer { source in
                matrix.withUnsafeBufferPointer { values in
                    background.withUnsafeBufferPointer { colour in
                        CPixelKernels_turn(
                            source.baseAddress, image.stride, Int32(image.width), Int32(image.height),
                            target.baseAddress, width * 3, Int32(width), Int32(height), values.baseAddress,
                            colour.baseAddress)
                    }
                }
            }
            count = width * height * 3
        }
        return MemoryImage(width: width, height: height, pixels: output)
    }
}
