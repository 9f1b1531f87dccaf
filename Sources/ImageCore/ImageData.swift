import Synchronization
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Encoded image bytes (a file's contents or an upload), read once and lent to libvips or
/// the fast path without copies.
///
/// The bytes are one `malloc`ed buffer. The fast path reads them in place; libvips reads
/// encoded bytes lazily, long after the call that handed them over, and does not copy
/// them: so the first libvips use hands the buffer over to a reference-counted owner
/// (VipsKit's blob, `handOver`), which frees it with its last reference. Until then nothing
/// opens libvips: a JPEG on the fast path never does.
///
/// `@unchecked Sendable` is safe: the bytes are written once, in `init`, and only read
/// afterwards; the owner is made once under `ownerLock`, and is itself `Sendable`.
public final class ImageData: @unchecked Sendable {
    private let bytes: UnsafeMutableRawPointer
    /// What owns `bytes` once they have been handed over (nil: this object frees them).
    private let ownerLock = Mutex<(any AnyObject & Sendable)?>(nil)
    /// The name used in errors: the file path, or what the caller called the bytes.
    public let name: String
    /// Size in bytes.
    public let count: Int

    /// Copies `bytes` into a new buffer.
    /// - Parameters:
    ///   - bytes: encoded image bytes.
    ///   - name: what errors call these bytes.
    public init(copying bytes: some ContiguousBytes, name: String) {
        let (buffer, size) = bytes.withUnsafeBytes { raw -> (UnsafeMutableRawPointer, Int) in
            let buffer = malloc(max(1, raw.count))!
            if let base = raw.baseAddress { buffer.copyMemory(from: base, byteCount: raw.count) }
            return (buffer, raw.count)
        }
        self.bytes = buffer
        self.name = name
        count = size
    }

    /// Reads a whole file into a new buffer, refusing empty files and files over `maxBytes`.
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

    /// Reads the whole file open on `descriptor` (from its start) into a new buffer,
    /// refusing non-regular, empty and over-size files: the bytes of exactly that open
    /// file, whatever its name points to by now.
    /// - Parameters:
    ///   - descriptor: an open file; it stays open.
    ///   - name: what errors call the file (its path).
    ///   - maxBytes: the largest file accepted, checked before reading.
    /// - Throws: `ImageInputError` naming the file and the cause.
    public init(reading descriptor: FileDescriptor, name: String, maxBytes: Int) throws(ImageInputError) {
        let path = name
        var info = stat()
        guard fstat(descriptor.rawValue, &info) == 0 else {
            throw .unreadable(file: path, reason: errnoText())
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notAFile(file: path) }
        let size = Int(info.st_size)
        guard size > 0 else { throw .empty(file: path) }
        guard size <= maxBytes else { throw .fileTooLarge(file: path, bytes: size, limit: maxBytes) }
        guard let buffer = malloc(size) else {
            throw .unreadable(file: path, reason: "out of memory")
        }
        var done = 0
        while done < size {
            let got = pread(descriptor.rawValue, buffer + done, size - done, off_t(done))
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                free(buffer)
                throw .unreadable(file: path, reason: got < 0 ? errnoText() : "the file shrank while it was read")
            }
            done += got
        }
        bytes = buffer
        self.name = path
        count = size
    }

    deinit {
        // An owner, when there is one, frees the bytes with its last reference.
        if ownerLock.withLock({ $0 }) == nil { free(bytes) }
    }

    /// Lends the bytes for the duration of `body` (e.g. to hash them).
    public func withUnsafeBytes<T, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> T) throws(E) -> T {
        try withExtendedLifetime(self) { () throws(E) -> T in
            try body(UnsafeRawBufferPointer(start: bytes, count: count))
        }
    }

    /// Hands the bytes over to an owner made by `make` (once: later calls return the same
    /// owner), which must free them (`free`) when its own last reference goes; this object
    /// keeps the owner alive and no longer frees them itself. libvips, which reads the bytes
    /// lazily through reference-counted blobs, takes them this way.
    /// - Parameter make: makes the owner from the buffer and its size.
    public func handOver<Owner: AnyObject & Sendable>(
        _ make: (UnsafeMutableRawPointer, Int) -> Owner
    ) -> Owner {
        ownerLock.withLock { owner in
            if let existing = owner {
                guard let same = existing as? Owner else {
                    preconditionFailure("ImageData: the bytes were handed over to another kind of owner")
                }
                return same
            }
            let made = make(bytes, count)
            owner = made
            return made
        }
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
