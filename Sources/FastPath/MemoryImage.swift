internal import CPixelKernels

/// An 8-bit RGB image in memory, rows packed (3 bytes a pixel): what the fast path's
/// kernels read and write.
public struct MemoryImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// The pixels, row by row, R G B.
    public var pixels: [UInt8]

    /// Bytes per row.
    public var stride: Int { width * 3 }

    /// An image of one colour.
    public init(width: Int, height: Int, colour: [UInt8] = [255, 255, 255]) {
        precondition(width > 0 && height > 0 && colour.count == 3, "MemoryImage: a size above 0 and an RGB colour")
        self.width = width
        self.height = height
        pixels = [UInt8](unsafeUninitializedCapacity: width * height * 3) { buffer, count in
            CPixelKernels_fill(
                buffer.baseAddress, width * 3, Int32(width), Int32(height), colour[0], colour[1], colour[2])
            count = width * height * 3
        }
    }

    /// An image over `pixels` (`width` x `height` x 3 bytes).
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(
            pixels.count == width * height * 3, "MemoryImage: \(pixels.count) bytes for \(width)x\(height) RGB")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// `self` with `image` copied in at (x, y); the parts outside are cut off.
    public func pasting(_ image: MemoryImage, x: Int, y: Int) -> MemoryImage {
        var result = self
        let left = max(0, x)
        let right = min(width, x + image.width)
        guard left < right else { return result }
        let count = (right - left) * 3
        for row in max(0, y)..<min(height, y + image.height) {
            let target = (row * width + left) * 3
            let source = ((row - y) * image.width + (left - x)) * 3
            result.pixels.replaceSubrange(target..<(target + count), with: image.pixels[source..<(source + count)])
        }
        return result
    }

    /// The rectangle at (x, y) of `width` x `height` pixels (inside the image).
    public func cropped(x: Int, y: Int, width: Int, height: Int) -> MemoryImage {
        precondition(
            x >= 0 && y >= 0 && x + width <= self.width && y + height <= self.height, "MemoryImage.cropped: inside")
        if x == 0, width == self.width {
            return MemoryImage(
                width: width, height: height, pixels: Array(pixels[(y * stride)..<((y + height) * stride)]))
        }
        var output = [UInt8]()
        output.reserveCapacity(width * height * 3)
        for row in y..<(y + height) {
            let start = (row * self.width + x) * 3
            output.append(contentsOf: pixels[start..<(start + width * 3)])
        }
        return MemoryImage(width: width, height: height, pixels: output)
    }
}
