import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// What identifies a file's current content without reading it: device, inode, size and
/// modification time (nanoseconds). Whoever trusts a stamp trusts that a file rewritten in
/// place also changes its size or modification time (every ordinary writer does; a tool
/// that restores the old mtime with the same size does not).
public struct FileStamp: Sendable, Hashable, Codable, CustomStringConvertible {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int
    public var modifiedSeconds: Int
    public var modifiedNanoseconds: Int

    /// The stamp of an open file (`fstat`): the file that descriptor reads, whatever its
    /// name points to by now.
    /// - Throws: the system's error.
    public init(of descriptor: FileDescriptor) throws(Errno) {
        var info = stat()
        guard fstat(descriptor.rawValue, &info) == 0 else { throw Errno(rawValue: errno) }
        self.init(info)
    }

    /// A stamp from its parts.
    public init(device: UInt64, inode: UInt64, size: Int, modifiedSeconds: Int, modifiedNanoseconds: Int) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modifiedSeconds = modifiedSeconds
        self.modifiedNanoseconds = modifiedNanoseconds
    }

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int(info.st_size)
        modifiedSeconds = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
    }

    /// `device-inode size seconds.nanoseconds`.
    public var description: String { "\(device)-\(inode) \(size) \(modifiedSeconds).\(modifiedNanoseconds)" }
}
