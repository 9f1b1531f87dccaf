internal import CVips
import ImageCore

#if canImport(Glibc)
    import Glibc
#endif

/// The owner of an `ImageData`'s bytes once libvips has them: a `VipsBlob`, which frees the
/// buffer with its last reference (every source and image made from it holds one).
///
/// `@unchecked Sendable` is safe: the pointer is written once, in `init`, and `VipsArea`
/// reference counting is locked by libvips.
final class VipsBlobOwner: @unchecked Sendable {
    let blob: UnsafeMutablePointer<VipsBlob>

    init(bytes: UnsafeMutableRawPointer, count: Int) {
        blob = vips_blob_new(
            { data, _ in
                free(data)
                return 0
            }, bytes, count)!
    }

    deinit { vips_area_unref(UnsafeMutableRawPointer(blob).assumingMemoryBound(to: VipsArea.self)) }
}

extension ImageData {
    /// The blob over the bytes, made on first use (libvips must be open); it owns the buffer
    /// from then on.
    private var blob: UnsafeMutablePointer<VipsBlob> {
        precondition(Vips.isLoaded, "ImageData: libvips is opened (Vips.requireLoaded) before a source is made")
        return handOver { VipsBlobOwner(bytes: $0, count: $1) }.blob
    }

    /// Makes a fresh `VipsSource` over the blob for one operation and releases it afterwards.
    ///
    /// A source has a read position, so it is not shared between operations or threads;
    /// an image made from it keeps its own reference (and the blob) alive.
    func withSource<T, E: Error>(_ body: (UnsafeMutablePointer<VipsSource>) throws(E) -> T) throws(E) -> T {
        let blob = self.blob
        if withUnsafeBytes(VipsModules.looksLikeHEIF) { VipsModules.requireHEIF() }
        let source = vips_source_new_from_blob(blob)!
        defer { g_object_unref(source) }
        return try withExtendedLifetime(self) { () throws(E) -> T in try body(source) }
    }
}
