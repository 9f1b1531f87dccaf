internal import CFileUtilities
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A directory whose files are opened only from beneath it: a relative path, `..` and
/// symbolic links included, must resolve inside the directory, or the open fails.
///
/// One step, no race: the kernel resolves the path with `openat2(RESOLVE_BENEATH)`, so a
/// link swapped in between a check and an open cannot lead out (there is no separate
/// check). Where `openat2` is missing (kernels before 5.6, or a seccomp filter that refuses
/// it), the path is opened with `O_PATH` (no side effect), checked where it really is
/// (`/proc/self/fd/N`) and what it is, and only then that inode is opened for reading. Opens are
/// non-blocking (a FIFO cannot hang a worker) and must reach a regular file.
public struct ConfinedDirectory: Sendable {
    /// The directory as given.
    public let path: String
    /// Its real path (links resolved), without a trailing slash ("" for `/`).
    public let realPath: String

    /// Why a file could not be opened beneath the directory.
    public enum OpenError: Error, Sendable, Equatable {
        /// The path, or a link on it, leads outside the directory (or is absolute).
        case outside
        /// Not a regular file (a directory, a device, a FIFO).
        case notRegularFile
        /// The system's error (no such file, permission denied, ...).
        case system(Errno)
    }

    /// - Throws: the system's error when `path` cannot be resolved.
    public init(_ path: String) throws(Errno) {
        guard let resolved = realpath(path, nil) else { throw Errno(rawValue: errno) }
        defer { free(resolved) }
        let text = String(cString: resolved)
        self.path = path
        realPath = text == "/" ? "" : text
    }

    /// Opens `relative` (a path relative to the directory) read-only.
    /// - Throws: `OpenError`; `.outside` for an absolute path or one that leaves the directory.
    public func open(_ relative: String) throws(OpenError) -> FileDescriptor {
        guard !relative.hasPrefix("/") else { throw .outside }
        let flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
        let directory = CFileUtilities_open_directory(realPath.isEmpty ? "/" : realPath)
        guard directory >= 0 else { throw .system(Errno(rawValue: errno)) }
        defer { close(directory) }
        var descriptor = CFileUtilities_openat2(directory, relative, flags, CFileUtilities_resolve_beneath())
        if descriptor < 0 {
            let error = errno
            switch error {
            case EXDEV: throw .outside
            case ENOSYS, EPERM:
                descriptor = try openChecking(relative, flags: flags)
            default: throw .system(Errno(rawValue: error))
            }
        }
        let file = FileDescriptor(rawValue: descriptor)
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            try? file.close()
            throw .notRegularFile
        }
        return file
    }

    /// Without `openat2`: check first, then open what was checked. The path is opened with
    /// `O_PATH` (no read access, no side effect: a device is not opened, a FIFO's writer is
    /// not released), where the file really is (`/proc/self/fd/N`) and what it is are
    /// checked on that descriptor, and only then is that very inode opened for reading,
    /// through `/proc/self/fd/N`, so nothing can be swapped in between.
    /// - Throws: `.outside`, `.notRegularFile`, or the system's error.
    func openChecking(_ relative: String, flags: Int32) throws(OpenError) -> Int32 {
        let handle = CFileUtilities_open_path(realPath + "/" + relative)
        guard handle >= 0 else { throw .system(Errno(rawValue: errno)) }
        defer { close(handle) }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/fd/\(handle)", &buffer, buffer.count - 1)
        let opened = count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        guard opened.hasPrefix(realPath + "/") else { throw .outside }
        var info = stat()
        guard fstat(handle, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { throw .notRegularFile }
        let descriptor = Glibc.open("/proc/self/fd/\(handle)", flags)
        guard descriptor >= 0 else { throw .system(Errno(rawValue: errno)) }
        return descriptor
    }

    /// The path of `file` relative to `directory`, by their components as written (no
    /// normalisation: `..` segments are left for the kernel to judge), or nil when `file`
    /// is not written under `directory`.
    public static func relative(_ file: String, to directory: String) -> String? {
        let (filePath, directoryPath) = (FilePath(file), FilePath(directory))
        if directoryPath.isEmpty || directoryPath == FilePath(".") {
            return filePath.isAbsolute ? nil : filePath.string
        }
        guard filePath.starts(with: directoryPath) else { return nil }
        return FilePath(root: nil, filePath.components.dropFirst(directoryPath.components.count)).string
    }
}
