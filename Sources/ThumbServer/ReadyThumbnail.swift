import HTTPTypes
import NIOCore
import ServerShell

/// A finished thumbnail and the headers that describe it, made once when it is stored: what
/// the server keeps in memory for the hottest requests (`ThumbService.memory`, a
/// `BoundedMemory` bounded in bytes, keyed by what identifies a request's answer without
/// reading the photo: the file's real path and stamp plus the width, format and quality). A
/// hit costs a `stat` and a dictionary lookup, and its `ByteBuffer` is shared, not copied, into
/// the response.
struct ReadyThumbnail: Sendable {
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
