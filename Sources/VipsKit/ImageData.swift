internal import CVips
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Encoded image bytes (a file's contents or an upload) held in a libvips blob.
///
/// libvips reads encoded bytes lazily, long after the call that handed them over, and
/// does not copy them: so the bytes live in a reference-counted `VipsBlob` that every
/// source and image made from them holds on to.
///
/// `@unchecked Sendable` is safe: the blob's bytes are written once, in `init`, and only
/// read afterwards; `VipsArea` reference counting is locked by libvips.
public final class ImageData: @unchecked Sendable {
    private let blob: UnsafeMutablePointer<VipsBlob>
    /// The name used in errors: the file path, or what the caller called the bytes.
    public let name: String
    /// Size in bytes.
    public let count: Int

    /// Copies `bytes` into a new blob.
    /// - Parameters:
    ///   - bytes: encoded image bytes.
    ///   - name: what errors call these bytes.
    public init(copying bytes: some ContiguousBytes, name: String) {
        Vips.requireStarted()
        var size = 0
        let made = bytes.withUnsafeBytes { raw -> UnsafeMutablePointer<VipsBlob> in
            size = raw.count
            return vips_blob_copy(raw.baseAddress, raw.count)
        }
        blob = made
        self.name = name
        count = size
    }

    /// Reads a whole file into a new blob, refusing empty files and files over `maxBytes`.
    /// - Parameters:
    ///   - path: the file to read.
    ///   - maxBytes: the largest file accepted, checked before reading.
    /// - Throws: `ImageInputError` naming the file and the cause.
    public convenience init(contentsOfFile path: String, maxBytes: Int) throws(ImageInputError) {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(path, .readOnly, options: .closeOnExec)
        } catch {
            throw .unreadable(file: path, reason: errnoText(error))
        }
        defer { try? descriptor.close() }
        try self.init(reading: descriptor, name: path, maxBytes: maxBytes)
    }

    /// Reads the whole file open on `descriptor` (from its start) into a new blob, refusing
    /// non-regular, empty and over-size files: the bytes of exactly that open file, whatever
    /// its name points to by now.
    /// - Parameters:
    ///   - descriptor: an open file; it stays open.
    ///   - name: what errors call the file (its path).
    ///   - maxBytes: the largest file accepted, checked before reading.
    /// - Throws: `ImageInputError` naming the file and the cause.
    public init(reading descriptor: FileDescriptor, name: String, maxBytes: Int) throws(ImageInputError) {
        Vips.requireStarted()
        let path = name
        var info = stat()
        guard fstat(descriptor.rawValue, &info) == 0 else {
            throw .unreadable(file: path, reason: errnoText())
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notAFile(file: path) }
        let size = Int(info.st_size)
        guard size > 0 else { throw .empty(file: path) }
        guard size <= maxBytes else { throw .fileTooLarge(file: path, bytes: size, limit: maxBytes) }
        guard let buffer = g_malloc(gsize(size)) else {
            throw .unreadable(file: path, reason: "out of memory")
        }
        var done = 0
        while done < size {
            let got = pread(descriptor.rawValue, buffer + done, size - done, off_t(done))
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                g_free(buffer)
                throw .unreadable(file: path, reason: got < 0 ? errnoText() : "the file shrank while it was read")
            }
            done += got
        }
        // The blob owns the g_malloc'd buffer from here on and g_frees it with the last reference.
        blob = vips_blob_new(
            { data, _ in
                g_free(data)
                return 0
            }, buffer, size)
        self.name = path
        count = size
    }

    deinit {
        vips_area_unref(areaPointer)
    }

    private var areaPointer: UnsafeMutablePointer<VipsArea> {
        UnsafeMutableRawPointer(blob).assumingMemoryBound(to: VipsArea.self)
    }

    /// Lends the bytes for the duration of `body` (e.g. to hash them).
    public func withUnsafeBytes<T, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> T) throws(E) -> T {
        try withExtendedLifetime(self) { () throws(E) -> T in
            var length = 0
            let base = vips_blob_get(blob, &length)
            return try body(UnsafeRawBufferPointer(start: base, count: length))
        }
    }

    /// Makes a fresh `VipsSource` over the blob for one operation and releases it afterwards.
    ///
    /// A source has a read position, so it is not shared between operations or threads;
    /// an image made from it keeps its own reference (and the blob) alive.
    func withSource<T, E: Error>(_ body: (UnsafeMutablePointer<VipsSource>) throws(E) -> T) throws(E) -> T {
        if withUnsafeBytes(VipsModules.looksLikeHEIF) { VipsModules.requireHEIF() }
        let source = vips_source_new_from_blob(blob)!
        defer { g_object_unref(source) }
        return try withExtendedLifetime(self) { () throws(E) -> T in try body(source) }
    }
}

/// The text of the current `errno`.
func errnoText() -> String {
    String(cString: strerror(errno))
}

/// The text of a thrown system error.
func errnoText(_ error: Error) -> String {
    (error as? Errno).map { String(cString: strerror($0.rawValue)) } ?? "\(error)"
}
