import CardPipeline
import HTTPTypes
import ImageCore
import ObjectStore
import RenderCache
import ServerShell
import SystemPackage
import Thumbnails

#if canImport(Glibc)
    import Glibc
#endif

extension ThumbService {
    /// The answer to a `/thumb` request that needs no waiting, decided on the event loop that
    /// read it (`ImmediateAnswerHandler`): a thumbnail in memory, or a 304 for a client whose copy
    /// is current. Nil for everything else (a render, a disk or bucket read, any refusal),
    /// which then takes the asynchronous path, where the same checks run again and decide.
    package func answerAtOnce(method: HTTPRequest.Method, path: String, query: String?, headers: HTTPFields)
        -> ImmediateAnswer?
    {
        guard case .directory(let root)? = source, path.utf8.count > Self.path.utf8.count,
            let asked = try? asked(method: method, path: path, query: query, headers: headers),
            let file = try? root.file(atURLPath: Self.relativePath(path))
        else { return nil }
        let photo = Photo(identity: "\(file.path)\n\(file.stamp)", modified: file.modified, origin: .file(file))
        return answerAtOnce(photo: photo, asked: asked, method: method, headers: headers)
            ?? fileAnswer(photo: photo, asked: asked, method: method, headers: headers)
    }

    /// A disk hit sent from the entry's file (sendfile), when the key is known and the file
    /// is one this server read and found sound before (`VerifiedEntryFiles`): no read, no
    /// copy in user space. Its headers are those of the same thumbnail from memory.
    func fileAnswer(photo: Photo, asked: Asked, method: HTTPRequest.Method, headers: HTTPFields) -> ImmediateAnswer? {
        guard let key = knownKey(of: photo, asked),
            let opened = verifiedFiles.open(key, path: cache.store.path(of: key))
        else { return nil }
        if opened.touch { cache.store.touch(key) }
        cache.entries.countHit()
        metrics.thumbnail(from: .disk)
        var fields = ReadyThumbnail.validators(
            etag: "\"\(key.hex)\"", modified: photo.modified, maxAge: configuration.maxAge)
        fields[.contentType] = opened.contentType
        fields[.imageSize] = "\(opened.width)x\(opened.height)"
        if let frames = opened.frames { fields[.imageFrames] = frames }
        fields[.contentLength] = String(opened.length)
        decorate(&fields, asked: asked, requestHeaders: headers)
        fields[.xCache] = ThumbMetrics.Source.disk.rawValue
        guard method != .head else {
            try? opened.descriptor.close()
            return ImmediateAnswer(status: .ok, headers: fields, body: nil)
        }
        metrics.sentFromFile()
        return ImmediateAnswer(
            status: .ok, headers: fields, body: nil,
            file: ImmediateAnswer.FileBody(descriptor: opened.descriptor, offset: opened.offset, length: opened.length))
    }

    /// A memory hit, or a 304 decided from the cache key when the photo's digest is known
    /// without reading it (the digest memo for files, the store's checksum for objects): no
    /// entry is read for a client whose copy is current.
    func answerAtOnce(photo: Photo, asked: Asked, method: HTTPRequest.Method, headers: HTTPFields) -> ImmediateAnswer? {
        if let entry = memory.value(for: asked.identity(of: photo)) {
            metrics.thumbnail(from: .memory)
            return answer(entry, source: .memory, method: method, headers: headers, asked: asked)
        }
        guard headers[.ifNoneMatch] != nil || headers[.ifModifiedSince] != nil, let etag = knownTag(of: photo, asked)
        else { return nil }
        guard Self.isNotModified(headers, etag: etag, modified: photo.modified) else { return nil }
        metrics.thumbnail(from: .tag)
        var fields = ReadyThumbnail.validators(etag: etag, modified: photo.modified, maxAge: configuration.maxAge)
        decorate(&fields, asked: asked, requestHeaders: headers)
        fields[.xCache] = ThumbMetrics.Source.tag.rawValue
        return ImmediateAnswer(status: .notModified, headers: fields, body: nil)
    }

    /// The thumbnail's tag (its cache key) when the photo's digest is known without reading it.
    func knownTag(of photo: Photo, _ asked: Asked) -> String? {
        knownKey(of: photo, asked).map { "\"\($0.hex)\"" }
    }

    /// The thumbnail's cache key when the photo's digest is known without reading it.
    func knownKey(of photo: Photo, _ asked: Asked) -> CacheKey? {
        let digest: String?
        switch photo.origin {
        case .file(let file): digest = cache.memo.digest(for: file.fileStamp)
        case .object(let object, _): digest = object.info.sha256 ?? digests.value(for: photo.identity)
        }
        guard let digest else { return nil }
        return try? thumbnailer.key(inputDigest: digest, request: asked.request, options: asked.options)
    }

    /// RFC 9110 §13.1: `If-None-Match` (weak comparison, `*`) decides when present, else
    /// `If-Modified-Since` against the file's modification time.
    static func isNotModified(_ headers: HTTPFields, etag: String, modified: Int) -> Bool {
        if let match = headers[.ifNoneMatch] {
            return match.split(separator: ",").contains { tag in
                var tag = tag.trimmingSpaces
                if tag == "*" { return true }
                if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
                return tag == etag
            }
        }
        if let since = headers[.ifModifiedSince], let date = HTTPDate.parse(since) {
            return modified <= date
        }
        return false
    }
}
