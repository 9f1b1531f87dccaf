import FileUtilities
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Remembers the content digest of input files by their `FileStamp`, so an unchanged file
/// is looked up in the cache without being read.
///
/// What it trusts: that a file whose device, inode, size and modification time (to the
/// nanosecond) are unchanged has unchanged content. A miss never relies on it: the bytes
/// that are then read and rendered are hashed, and the key is made from that hash.
/// Files: `memo/<device>-<inode>` holding `size seconds nanoseconds` and the digest. One
/// file per input ever seen would grow without bound (inodes come and go), so `prune`
/// keeps the `maxEntries` most recently written (the cache's garbage collection calls it).
public struct DigestMemo: Sendable {
    /// The memo directory.
    public let directory: String
    /// The most entries `prune` keeps (default 100,000: a server's or a print shop's
    /// working set of photos; each entry is one small file).
    public let maxEntries: Int

    /// Opens (creating if needed) the memo in `directory`.
    /// - Throws: `CacheError.unwritable` when it cannot be created.
    public init(directory: String, maxEntries: Int = 100_000) throws(CacheError) {
        self.directory = directory
        self.maxEntries = maxEntries
        try DiskStore.makeDirectories(directory)
    }

    /// Removes the oldest entries (by when they were written) beyond `maxEntries`, and any
    /// left-over temporary file; best effort.
    /// - Returns: how many were removed.
    @discardableResult
    public func prune() -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return 0 }
        var entries: [(name: String, written: Int)] = []
        for name in names where !name.hasPrefix(".") {
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0 else { continue }
            entries.append((name, Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)))
        }
        AtomicFile.removeDeadTemporaries(in: directory)
        guard entries.count > maxEntries else { return 0 }
        entries.sort { $0.written < $1.written }
        var removed = 0
        for entry in entries.prefix(entries.count - maxEntries) where unlink(directory + "/" + entry.name) == 0 {
            removed += 1
        }
        return removed
    }

    /// The remembered digest of the content with this stamp, if any.
    public func digest(for stamp: FileStamp) -> String? {
        guard let data = FileManager.default.contents(atPath: path(stamp)) else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: "\n")
        guard parts.count == 2, parts[0] == Self.line(stamp), parts[1].utf8.count == 64 else { return nil }
        return String(parts[1])
    }

    /// Remembers `digest` for the content with this stamp (best effort).
    public func remember(_ digest: String, for stamp: FileStamp) {
        try? AtomicFile.write(Array("\(Self.line(stamp))\n\(digest)".utf8), to: path(stamp), durable: false)
    }

    /// The digest of the file at `path`: remembered while its stamp is unchanged, else read
    /// and hashed (and remembered). For inputs whose bytes are not rendered here (frame art).
    /// - Throws: `CacheError.unreadable` naming the file.
    public func digest(ofFile path: String) throws(CacheError) -> String {
        do {
            let descriptor = try FileDescriptor.open(path, .readOnly, options: .closeOnExec)
            defer { try? descriptor.close() }
            let stamp = try FileStamp(of: descriptor)
            if let known = digest(for: stamp) { return known }
            let digest = ContentDigest.of(try descriptor.readAll())
            remember(digest, for: stamp)
            return digest
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }

    private func path(_ stamp: FileStamp) -> String {
        "\(directory)/\(stamp.device)-\(stamp.inode)"
    }

    private static func line(_ stamp: FileStamp) -> String {
        "\(stamp.size) \(stamp.modifiedSeconds) \(stamp.modifiedNanoseconds)"
    }
}
