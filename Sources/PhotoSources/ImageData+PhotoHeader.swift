import FastPath
import ImageCore
import VipsKit

extension ImageData {
    /// The photo's header, read once per card or thumbnail: by libjpeg for a JPEG the fast
    /// path can decode (so such a photo never opens libvips), by libvips otherwise. A JPEG
    /// libjpeg cannot read, or one for libvips's colour management (CMYK, a non-sRGB
    /// profile), gets libvips's reading, and so its words for a damaged header, as before.
    /// - Throws: as `header(policy:)`.
    public func photoHeader(policy: DecodePolicy) throws -> ImageHeader {
        let info = withUnsafeBytes { bytes -> JPEGCodec.Info? in
            // libvips's JPEG loader claims bytes by these two (`vips__isjpeg_source`).
            guard bytes.count > 2, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
            return JPEGCodec.info(of: bytes)
        }
        guard let info, FastJPEGSource.canDecode(info) else { return try header(policy: policy) }
        return try header(
            format: .jpeg, loader: "jpegload_source", width: info.width, height: info.height,
            orientation: info.orientation, policy: policy)
    }
}
