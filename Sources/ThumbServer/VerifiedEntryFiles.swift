import RenderCache
import Synchronization
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// The disk cache entries this server has read whole and found sound (their SHA-256
/// matched, in `ContentCache`), by key, with the identity of the file it read: a later hit
/// on one is sent straight from the file (sendfile), not read again.
///
/// Why a memo, not a check per hit: every entry is verified on read, so a corrupt file is
/// never served; sending a file unread keeps that promise only for a file already read and
/// found sound. An entry file is never rewritten in place (the store links a finished file
/// to its name, and a corrupt one is removed), so the same device, inode and size mean the
/// same bytes; a new file under the key has a new identity and is read and checked again.
/// What this cannot see is a file damaged in place afterwards (the disk's own bit rot):
/// `cardrender cache verify` finds those.
final class VerifiedEntryFiles: Sendable {
    /// What names one file's bytes here.
    private struct Identity: Hashable {
        let device: UInt64
        let inode: UInt64
        let size: Int
    }

    /// A verified entry file, open, and where its image lies: the caller owns `descriptor`.
    struct Opened {
        let descriptor: FileDescriptor
        let layout: CacheEntry.Layout
    }

    private let known = Mutex<[CacheKey: Identity]>([:])
    /// The most keys remembered; past it the memo starts again (each entry is then read and
    /// checked once more).
    private let capacity: Int

    init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// Remembers the file now at `path` as the sound copy of `key` (just read and checked).
    func record(_ key: CacheKey, path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        let identity = Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int(info.st_size))
        known.withLock { known in
            if known.count >= capacity { known.removeAll() }
            known[key] = identity
        }
    }

    /// The file of `key` at `path`, open, when it is the file recorded as sound; nil (and
    /// forgotten) when it is another file now, and nil when none was recorded.
    func open(_ key: CacheKey, path: String) -> Opened? {
        guard let expected = known.withLock({ $0[key] }) else { return nil }
        guard let descriptor = try? FileDescriptor.open(path, .readOnly, options: .closeOnExec) else {
            forget(key)
            return nil
        }
        var info = stat()
        let identity =
            fstat(descriptor.rawValue, &info) == 0
            ? Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int(info.st_size)) : nil
        guard identity == expected, let layout = CacheEntry.layout(of: descriptor, fileSize: expected.size) else {
            try? descriptor.close()
            forget(key)
            return nil
        }
        return Opened(descriptor: descriptor, layout: layout)
    }

    private func forget(_ key: CacheKey) {
        _ = known.withLock { $0.removeValue(forKey: key) }
    }
}
