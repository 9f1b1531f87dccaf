import CDispatch
import ImageCore
import RenderCache
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
    private struct Identity: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64
        let size: Int
    }

    /// A sound entry file and what a hit needs of it, learnt when it was read.
    private struct Known: Sendable {
        let identity: Identity
        /// The image part's place in the file, and the thumbnail's size in pixels.
        let offset: Int
        let length: Int
        let width: Int
        let height: Int
        /// `Content-Type` (a placeholder's may differ from the format's).
        let contentType: String
        /// `X-Image-Frames`, for an animation cut short.
        let frames: String?
        /// When its modification time (the cache's LRU order) was last set.
        var touched: ContinuousClock.Instant
    }

    /// A verified entry file, open, and where its image lies: the caller owns `descriptor`.
    struct Opened {
        let descriptor: FileDescriptor
        let offset: Int
        let length: Int
        let width: Int
        let height: Int
        let contentType: String
        let frames: String?
        /// Whether the caller should set the file's modification time now (at most once a
        /// minute per file: the LRU order needs no finer grain, and each is a syscall).
        let touch: Bool
    }

    /// The files found sound, by key: the least recently used forgotten past `capacity` (each
    /// is then read and checked once more on its next hit).
    private let known: BoundedMemory<CacheKey, Known>

    init(capacity: Int = 100_000) {
        known = BoundedMemory(capacity: capacity)
    }

    /// Remembers the file now at `path` as the sound copy of `key`, just read and checked,
    /// with the part `part` (the image) of a thumbnail of `width` x `height` sent as
    /// `contentType` (with `frames` as `X-Image-Frames`, if any). Blocking (it opens the
    /// file and reads its header): call it where blocking is allowed.
    func record(
        _ key: CacheKey, path: String, part: String, width: Int, height: Int, contentType: String, frames: String?
    ) {
        guard let descriptor = try? FileDescriptor.open(path, .readOnly, options: .closeOnExec) else { return }
        defer { try? descriptor.close() }
        guard let identity = Self.identity(of: descriptor),
            let image = CacheEntry.layout(of: descriptor, fileSize: identity.size)?.part(part)
        else { return }
        let entry = Known(
            identity: identity, offset: image.offset, length: image.size, width: width, height: height,
            contentType: contentType, frames: frames, touched: .now)
        known.insert(entry, for: key)
    }

    /// The file of `key` at `path`, open, when it is the file recorded as sound (an `open`
    /// and an `fstat`, nothing read); nil, and forgotten, when it is another file now; nil
    /// when none was recorded.
    func open(_ key: CacheKey, path: String) -> Opened? {
        guard let expected = known.value(for: key) else { return nil }
        guard let descriptor = try? FileDescriptor.open(path, .readOnly, options: .closeOnExec) else {
            forget(key)
            return nil
        }
        guard Self.identity(of: descriptor) == expected.identity else {
            try? descriptor.close()
            forget(key)
            return nil
        }
        let now = ContinuousClock.now
        let touch =
            known.update(key) { known in
                guard now - known.touched >= .seconds(60) else { return false }
                known.touched = now
                return true
            } ?? false
        return Opened(
            descriptor: descriptor, offset: expected.offset, length: expected.length, width: expected.width,
            height: expected.height, contentType: expected.contentType, frames: expected.frames, touch: touch)
    }

    private static func identity(of descriptor: FileDescriptor) -> Identity? {
        var info = stat()
        guard fstat(descriptor.rawValue, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int(info.st_size))
    }

    private func forget(_ key: CacheKey) {
        known.removeValue(for: key)
    }
}
