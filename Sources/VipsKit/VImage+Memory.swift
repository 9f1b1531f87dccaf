internal import CVips

/// 8-bit pixels in and out of libvips, for code that works on memory (the fast path).
extension VImage {
    /// The pixels as bytes, bands interleaved, rows packed (the image is computed).
    /// - Throws: `VipsError` (`image_write_to_memory`).
    /// libvips: `vips_image_write_to_memory`.
    public func eightBitPixels() throws(VipsError) -> [UInt8] {
        precondition(isEightBit, "VImage.eightBitPixels: an 8-bit image")
        return try withPointer { (image) throws(VipsError) -> [UInt8] in
            var size = 0
            guard let memory = vips_image_write_to_memory(image, &size) else {
                throw takeVipsError("image_write_to_memory", file: origin)
            }
            defer { g_free(memory) }
            return [UInt8](UnsafeRawBufferPointer(start: memory, count: size))
        }
    }

    /// An 8-bit image (sRGB for 3 bands, grey for 1) over a copy of `pixels`.
    /// - Throws: `VipsError` (`image_new_from_memory_copy`).
    /// libvips: `vips_image_new_from_memory_copy`.
    public static func fromEightBitPixels(_ pixels: [UInt8], width: Int, height: Int, bands: Int) throws(VipsError)
        -> VImage
    {
        try Vips.requireLoaded()
        precondition(pixels.count == width * height * bands, "VImage.fromEightBitPixels: size and bytes agree")
        let image = pixels.withUnsafeBytes { raw in
            vips_image_new_from_memory_copy(
                raw.baseAddress, raw.count, Int32(width), Int32(height), Int32(bands), VIPS_FORMAT_UCHAR)
        }
        guard let image else { throw takeVipsError("image_new_from_memory_copy", file: nil) }
        return VImage(owning: image, origin: nil)
    }
}
