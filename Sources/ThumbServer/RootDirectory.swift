// `struct stat`'s fields are owned by the CDispatch module once Dispatch is loaded (the two share
// the header), so MemberImportVisibility asks for it by name.
import CDispatch
import FileUtilities
import SystemPackage
import Thumbnails

#if canImport(Glibc)
    import Glibc
#endif

/// The directory a server publishes, and the only place it reads images from.
///
/// A URL path is turned into a file in two steps. Lexically: it is percent-decoded once,
/// and refused when it holds a NUL, a backslash, an empty, `.` or `..` segment, or starts
/// with `/` (so `..`, `%2e%2e`, `%2F..`, `//etc/passwd` and `..\` all fail here; a double
/// encoding such as `%252e%252e` decodes to the literal name `%2e%2e`, which is then just a
/// file that does not exist). Then physically, in one step: the file is opened beneath the
/// root (`ConfinedDirectory`: `openat2` with `RESOLVE_BENEATH`), so a symbolic link is
/// followed only while it stays inside, and must be a regular file. The open descriptor is
/// what the worker reads: nothing is reopened by name, so a link swapped in after the check
/// cannot be followed. Every refusal is the same `notFound`, so a client learns nothing
/// about what lies outside.
public struct RootDirectory: Sendable {
    /// The root's real path (symbolic links resolved), without a trailing slash.
    public let path: String
    private let directory: ConfinedDirectory

    /// A file found under the root, with what identifies its current content.
    public struct File: Sendable, Equatable {
        /// The file's path under the root as named (root's real path + the URL's path).
        public let path: String
        /// Device, inode, size and modification time (nanoseconds): changes when the file does.
        public let stamp: String
        /// Modification time in whole seconds since 1970 (for `Last-Modified`).
        public let modified: Int
        /// The same stamp as the cache's digest memo keys it.
        public let fileStamp: FileStamp
        /// The file, open for reading: read it through this, never by `path`.
        public let opened: OwnedDescriptor

        public static func == (left: File, right: File) -> Bool {
            left.path == right.path && left.stamp == right.stamp && left.modified == right.modified
        }
    }

    /// Resolves `directory` to its real path.
    /// - Throws: `RootDirectoryError` when it does not exist or is not a directory.
    public init(_ directory: String) throws(RootDirectoryError) {
        guard let resolved = realpath(directory, nil) else {
            throw RootDirectoryError(directory: directory, reason: String(cString: strerror(errno)))
        }
        defer { free(resolved) }
        var info = stat()
        guard stat(resolved, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw RootDirectoryError(directory: directory, reason: "not a directory")
        }
        let text = String(cString: resolved)
        path = text == "/" ? "" : text
        do {
            self.directory = try ConfinedDirectory(text)
        } catch {
            throw RootDirectoryError(directory: directory, reason: "\(error)")
        }
    }

    /// The regular file that the raw (still percent-encoded) URL path `relative` names.
    /// - Throws: `ThumbRequestError.notFound` for anything that is not a regular file under the root.
    public func file(atURLPath relative: Substring) throws(ThumbRequestError) -> File {
        let relativePath = try Self.relativePath(fromURLPath: relative)
        let descriptor: FileDescriptor
        do {
            descriptor = try directory.open(relativePath)
        } catch {
            throw .notFound
        }
        let opened = OwnedDescriptor(descriptor)
        var info = stat()
        guard fstat(descriptor.rawValue, &info) == 0 else { throw .notFound }
        let stamp = "\(info.st_dev) \(info.st_ino) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        let fileStamp = FileStamp(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int(info.st_size),
            modifiedSeconds: Int(info.st_mtim.tv_sec), modifiedNanoseconds: Int(info.st_mtim.tv_nsec))
        return File(
            path: path + "/" + relativePath, stamp: stamp, modified: Int(info.st_mtim.tv_sec), fileStamp: fileStamp,
            opened: opened)
    }

    /// The relative path a raw URL path names, checked lexically: percent-decoded once; no
    /// NUL, backslash, empty, `.` or `..` segment, and no leading `/`. Shared by every root.
    /// - Throws: `ThumbRequestError.notFound` otherwise.
    static func relativePath(fromURLPath relative: Substring) throws(ThumbRequestError) -> String {
        guard !relative.utf8.contains(UInt8(ascii: "\\")),
            let decoded = PercentDecoding.decode(relative),
            !decoded.isEmpty, decoded.first != UInt8(ascii: "/"),
            !decoded.contains(0), !decoded.contains(UInt8(ascii: "\\"))
        else { throw .notFound }
        for segment in decoded.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if segment.isEmpty || segment.elementsEqual([UInt8(ascii: ".")])
                || segment.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")])
            {
                throw .notFound
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }
}
