internal import CVips
internal import CVipsShim
import FileUtilities
import ImageCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A g_malloc'd buffer that libvips wrote: single owner until it becomes `Data`.
private struct VipsOutputBuffer: ~Copyable {
    let pointer: UnsafeMutableRawPointer
    let count: Int

    /// Hands the memory to `Data` without copying; `Data` g_frees it.
    consuming func data() -> Data {
        let data = Data(
            bytesNoCopy: pointer, count: count, deallocator: .custom { memory, _ in g_free(memory) })
        discard self
        return data
    }

    deinit {
        g_free(pointer)
    }
}

extension VImage {
    /// Encodes to memory: alpha flattened onto the background for JPEG, metadata
    /// stripped unless asked to keep it.
    /// - Parameter options: format and settings.
    /// - Returns: the encoded bytes.
    /// - Throws: `VipsError` (`jpegsave_buffer`, ...) naming this image's origin; decode
    ///   errors of a lazy pipeline surface here.
    /// libvips: `vips_jpegsave_buffer`, `vips_pngsave_buffer`, `vips_webpsave_buffer`,
    /// `vips_heifsave_buffer` (AV1), `vips_tiffsave_buffer` (deflate), `vips_gifsave_buffer` (cgif).
    public func encoded(_ options: EncodeOptions) throws(VipsError) -> Data {
        var image = options.format.keepsAlpha ? self : try flattened(onto: options.background)
        if !options.keepMetadata { image = try image.withoutMetadata() }
        let strip: gboolean = options.keepMetadata || options.keepResolution ? 0 : 1
        let quality = Int32(min(100, max(1, options.quality)))
        var memory: UnsafeMutableRawPointer?
        var length = 0
        let operation: String
        switch options.format {
        case .jpeg:
            operation = "jpegsave_buffer"
            let subsample: VipsForeignSubsample =
                switch options.chroma {
                case .auto: VIPS_FOREIGN_SUBSAMPLE_AUTO
                case .subsampled: VIPS_FOREIGN_SUBSAMPLE_ON
                case .full: VIPS_FOREIGN_SUBSAMPLE_OFF
                }
            try image.withPointer { (input) throws(VipsError) in
                try vipsCall(operation, file: origin) {
                    CVipsShim_jpegsave_buffer(
                        input, &memory, &length, quality, options.progressive ? 1 : 0, subsample, 1, strip)
                }
            }
        case .png:
            operation = "pngsave_buffer"
            let compression = Int32(min(9, max(0, options.pngCompression)))
            try image.withPointer { (input) throws(VipsError) in
                try vipsCall(operation, file: origin) {
                    CVipsShim_pngsave_buffer(
                        input, &memory, &length, compression, options.palette ? 1 : 0, quality, strip)
                }
            }
        case .webp:
            operation = "webpsave_buffer"
            try image.withPointer { (input) throws(VipsError) in
                try vipsCall(operation, file: origin) {
                    CVipsShim_webpsave_buffer(input, &memory, &length, quality, 0, 4, strip)
                }
            }
        case .avif:
            operation = "heifsave_buffer"
            VipsModules.requireHEIF()
            try image.withPointer { (input) throws(VipsError) in
                try vipsCall(operation, file: origin) {
                    CVipsShim_heifsave_buffer(input, &memory, &length, quality, 4, strip)
                }
            }
        case .tiff:
            operation = "tiffsave_buffer"
            try image.withPointer { (input) throws(VipsError) in
                try vipsCall(operation, file: origin) { CVipsShim_tiffsave_buffer(input, &memory, &length, strip) }
            }
        case .gif:
            operation = "gifsave_buffer"
            try image.withPointer { (input) throws(VipsError) in
                try vipsCall(operation, file: origin) { CVipsShim_gifsave_buffer(input, &memory, &length, 7, strip) }
            }
        }
        guard let memory else { throw takeVipsError(operation, file: origin) }
        return VipsOutputBuffer(pointer: memory, count: length).data()
    }

    /// A copy without EXIF, XMP, IPTC, ICC and orientation fields.
    ///
    /// The savers' own `strip` is set too, but libvips 8.14's WebP saver ignores it and
    /// writes EXIF and XMP (GPS included): removing the fields is what makes it sure.
    /// libvips: `vips_copy`, `vips_image_remove`.
    public func withoutMetadata() throws(VipsError) -> VImage {
        let doomed = metadataFields.filter { field in
            field.hasPrefix("exif-") || field == "xmp-data" || field == "iptc-data"
                || field == "icc-profile-data" || field == "orientation"
        }
        guard !doomed.isEmpty else { return self }
        let copy = try derive("copy") { CVipsShim_copy($0, $1) }
        // The copy is new and not yet shared with any other thread: editing it is safe.
        copy.withPointer { image in
            for field in doomed { _ = vips_image_remove(image, field) }
        }
        return copy
    }

    /// Encodes and writes to `path` atomically (a temporary file renamed into place).
    /// - Throws: `VipsError` from encoding, `AtomicFile.WriteError` from the file system.
    public func write(to path: String, _ options: EncodeOptions) throws {
        try AtomicFile.write(encoded(options), to: path)
    }
}
