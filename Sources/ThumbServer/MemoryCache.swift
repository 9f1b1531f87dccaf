import HTTPTypes
import NIOCore
import ServerShell
import Synchronization

/// Encoded thumbnails of the most recent requests, in memory, bounded in bytes.
///
/// Keyed by what identifies a request's answer without reading the photo: the file's real
/// path and stamp (device, inode, size, modification time) plus the width, format and
/// quality. A hit costs a `stat` and a dictionary lookup, and its `ByteBuffer` is shared,
/// not copied, into the response. When the bytes pass the bound, the least recently used
/// quarter is dropped (amortised: one sort per many inserts).
final class MemoryCache: Sendable {
    /// A finished thumbnail and the headers that describe it, made once when it is stored.
    struct Entry: Sendable {
        let body: ByteBuffer
        let etag: String
        let modified: Int
        /// `ETag`, `Last-Modified`, `Cache-Control`, `X-Content-Type-Options`: every answer's.
        let validatorHeaders: HTTPFields
        /// The validator headers plus `Content-Type`, `X-Image-Size`, `Content-Length`: a 200's.
        let contentHeaders: HTTPFields

        /// - Parameter frames: `X-Image-Frames` (`1 of 30`) when an animation was cut short.
        init(
            body: ByteBuffer, etag: String, contentType: String, modified: Int, width: Int, height: Int,
            maxAge: Int, frames: String? = nil
        ) {
            self.body = body
            self.etag = etag
            self.modified = modified
            validatorHeaders = Self.validators(etag: etag, modified: modified, maxAge: maxAge)
            var headers = validatorHeaders
            headers[.contentType] = contentType
            headers[.imageSize] = "\(width)x\(height)"
            if let frames { headers[.imageFrames] = frames }
            headers[.contentLength] = String(body.readableBytes)
            contentHeaders = headers
        }

        /// The memory it holds: its buffer's capacity, not its length (swift-nio rounds a
        /// buffer up to a power of two, so a 1.1 MB thumbnail holds 2 MB; counting lengths
        /// let a 64 MiB cache hold up to twice that).
        var cost: Int { body.capacity }

        /// The validator headers of a thumbnail known only by its tag (a 304 from the key).
        static func validators(etag: String, modified: Int, maxAge: Int) -> HTTPFields {
            var headers = HTTPFields()
            headers[.eTag] = etag
            headers[.lastModified] = HTTPDate.format(modified)
            headers[.cacheControl] = "public, max-age=\(maxAge)"
            headers[.xContentTypeOptions] = "nosniff"
            return headers
        }
    }

    private struct Slot {
        var entry: Entry
        var used: UInt64
    }

    private struct State {
        var slots: [String: Slot] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    /// The bound in bytes.
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The entry for `key`, marked as just used.
    func entry(for key: String) -> Entry? {
        state.withLock { state in
            guard var slot = state.slots[key] else { return nil }
            state.clock += 1
            slot.used = state.clock
            state.slots[key] = slot
            return slot.entry
        }
    }

    /// Keeps `entry` for `key`, evicting the least recently used when over the bound.
    func insert(_ entry: Entry, for key: String) {
        let size = entry.cost + key.utf8.count
        guard size <= capacity / 4 else { return }
        state.withLock { state in
            state.clock += 1
            if let old = state.slots.updateValue(Slot(entry: entry, used: state.clock), forKey: key) {
                state.bytes -= old.entry.cost + key.utf8.count
            }
            state.bytes += size
            guard state.bytes > capacity else { return }
            let order = state.slots.sorted { $0.value.used < $1.value.used }
            for (oldKey, slot) in order where state.bytes > capacity * 3 / 4 {
                state.slots.removeValue(forKey: oldKey)
                state.bytes -= slot.entry.cost + oldKey.utf8.count
            }
        }
    }

    /// Entries and bytes held.
    var usage: (entries: Int, bytes: Int) { state.withLock { ($0.slots.count, $0.bytes) } }
}
