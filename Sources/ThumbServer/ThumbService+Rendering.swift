import CardPipeline
import FileUtilities
import HTTPTypes
import ImageCore
import Logging
import NIOCore
import NIOPosix
import ObjectStore
import RenderCache
import ServerShell
import SystemPackage
import Thumbnails

#if canImport(Glibc)
    import Glibc
#endif

extension ThumbService {
    func thumbnail(method: HTTPRequest.Method, path: String, query: String?, headers: HTTPFields)
        async throws -> ImmediateAnswer
    {
        let asked = try asked(method: method, path: path, query: query, headers: headers)
        let photo = try await locate(Self.relativePath(path))
        if let answer = answerAtOnce(photo: photo, asked: asked, method: method, headers: headers) { return answer }
        let identity = asked.identity(of: photo)
        let (made, joined) = try await flights.run(identity) { [self] in
            if let entry = await diskEntry(of: photo, asked) { return Produced(entry: entry, source: .disk) }
            return try await produce(photo: photo, asked: asked, identity: identity)
        }
        let produced = joined ? Produced(entry: made.entry, source: .joined) : made
        metrics.thumbnail(from: produced.source)
        return answer(produced.entry, source: produced.source, method: method, headers: headers, asked: asked)
    }

    /// The thumbnail from this node's disk cache, read on NIO's blocking-I/O threads, when
    /// its key is known without reading the photo; kept in memory. A disk hit so never
    /// waits behind renders for a worker. Nil when the key is unknown or the disk has no
    /// entry: the workers then look further (the shared store) or render.
    func diskEntry(of photo: Photo, _ asked: Asked) async -> ReadyThumbnail? {
        guard let key = knownKey(of: photo, asked) else { return nil }
        let read = try? await NIOThreadPool.singleton.runIfActive { [cache, thumbnailer, verifiedFiles] in
            let thumbnail = cache.entries.entry(for: key, nearestOnly: true).flatMap {
                thumbnailer.thumbnail(in: $0, format: asked.options.format)
            }
            if let thumbnail {
                verifiedFiles.record(
                    key, path: cache.store.path(of: key), part: CachedThumbnailer.imagePart, width: thumbnail.width,
                    height: thumbnail.height, contentType: thumbnail.mimeType, frames: Self.framesHeader(thumbnail))
            }
            return thumbnail
        }
        guard let thumbnail = read else { return nil }
        return remember(thumbnail, key: key, photo: photo, identity: asked.identity(of: photo))
    }

    /// The photo a URL path names under the root.
    func locate(_ relative: Substring) async throws(ThumbRequestError) -> Photo {
        switch source {
        case nil: throw .notFound
        case .directory(let root):
            let file = try root.file(atURLPath: relative)
            return Photo(identity: "\(file.path)\n\(file.stamp)", modified: file.modified, origin: .file(file))
        case .bucket(let bucket):
            let object = try await bucket.object(atURLPath: relative)
            return Photo(
                identity: "\(bucket.bucket)/\(object.key)\n\(object.info.etag)\n\(object.info.size)",
                modified: object.info.modified, origin: .object(object, bucket))
        }
    }

    /// Looks the thumbnail up in the disk cache or renders it, on a worker; keeps it in memory.
    func produce(photo: Photo, asked: Asked, identity: String) async throws -> Produced {
        let (request, options) = (asked.request, asked.options)
        let maxBytes = configuration.policy.maxFileBytes
        let made = try await pool.run { [thumbnailer, metrics, digests] in
            switch photo.origin {
            case .file(let file):
                // The descriptor the root opened beneath itself: the name is never reopened.
                return try thumbnailer.thumbnail(
                    file: file.path, open: { _ in try file.opened.descriptor.duplicate() }, request: request,
                    options: options)
            case .object(let object, let bucket):
                // Downloaded once at most: to render (a miss), or to learn the digest of an
                // object stored without a SHA-256 that this server has not seen yet.
                var fetched: ImageData?
                let load = { () throws -> ImageData in
                    if let fetched { return fetched }
                    let bytes = try bucket.bytes(of: object, maxBytes: maxBytes)
                    metrics.sourceFetched()
                    fetched = bytes
                    return bytes
                }
                let digest: String
                if let known = object.info.sha256 ?? digests.value(for: photo.identity) {
                    digest = known
                } else {
                    digest = try load().withUnsafeBytes { ContentDigest.of($0) }
                    digests.insert(digest, for: photo.identity)
                }
                return try thumbnailer.thumbnail(inputDigest: digest, load: load, request: request, options: options)
            }
        }
        if let warning = made.thumbnail.warning { logger.warning("\(warning)") }
        let entry = remember(made.thumbnail, key: made.key, photo: photo, identity: identity)
        return Produced(entry: entry, source: made.cached ? .disk : .rendered)
    }

    /// The memory entry of a thumbnail, its headers made once; kept in the memory cache.
    func remember(_ thumbnail: Thumbnail, key: CacheKey?, photo: Photo, identity: String) -> ReadyThumbnail {
        let entry = ReadyThumbnail(
            body: ByteBuffer(bytes: thumbnail.data),
            etag: "\"\(key?.hex ?? ContentDigest.of(Array(identity.utf8)))\"",
            contentType: thumbnail.mimeType, modified: photo.modified, width: thumbnail.width,
            height: thumbnail.height, maxAge: configuration.maxAge, frames: Self.framesHeader(thumbnail))
        memory.insert(entry, for: identity)
        return entry
    }

    /// 200 with the image (headers only for HEAD), or 304 when the client's copy is current;
    /// the entry's headers were made when it was stored.
    func answer(
        _ entry: ReadyThumbnail, source: ThumbMetrics.Source, method: HTTPRequest.Method, headers: HTTPFields,
        asked: Asked
    ) -> ImmediateAnswer {
        let notModified = Self.isNotModified(headers, etag: entry.etag, modified: entry.modified)
        var fields = notModified ? entry.validatorHeaders : entry.contentHeaders
        decorate(&fields, asked: asked, requestHeaders: headers)
        fields[.xCache] = source.rawValue
        if notModified { return ImmediateAnswer(status: .notModified, headers: fields, body: nil) }
        return ImmediateAnswer(status: .ok, headers: fields, body: method == .head ? nil : entry.body)
    }
}
