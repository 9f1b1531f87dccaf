import ImageCore
import ObjectStore

/// The photos a server publishes when its root is `s3://BUCKET/PREFIX`: a URL path names
/// the object `PREFIX/<path>`, checked lexically as a directory root's is (no `..`, no
/// empty segment, decoded once), so nothing outside the prefix can be named.
///
/// A request costs one `HeadObject`: its entity tag tells whether the photo changed, and its
/// `x-amz-checksum-sha256` (objects uploaded with one, e.g. `aws s3 cp
/// --checksum-algorithm SHA256`) is the photo's content digest, so the thumbnail's cache key
/// is known, and equal to the key of the same photo on a disk, before a byte is read. The
/// photo is downloaded only to render (a miss), or to learn the digest of an object stored
/// without a checksum (once per server: `ThumbService.digests`).
public struct BucketRoot: Sendable {
    /// The client of the photo store.
    public let client: S3Client
    /// The bucket.
    public let bucket: String
    /// The key prefix, without slashes at either end ("" for none).
    public let prefix: String

    /// An object found under the prefix.
    public struct Object: Sendable, Equatable {
        /// Its key in the bucket.
        public let key: String
        /// What the store says about it.
        public let info: S3Client.ObjectInfo
    }

    public init(client: S3Client, bucket: String, prefix: String) {
        self.client = client
        self.bucket = bucket
        self.prefix = prefix.split(separator: "/").joined(separator: "/")
    }

    /// `s3://BUCKET/PREFIX`.
    public var location: String { "s3://\(bucket)/\(prefix)" }

    /// The object the raw URL path `relative` names.
    /// - Throws: `ThumbRequestError.notFound` for a path that cannot be under the prefix or
    ///   an object that is not there, `.sourceUnavailable` when the store does not answer.
    public func object(atURLPath relative: Substring) async throws(ThumbRequestError) -> Object {
        let path = try RootDirectory.relativePath(fromURLPath: relative)
        let key = prefix.isEmpty ? path : prefix + "/" + path
        let info: S3Client.ObjectInfo?
        do {
            info = try await client.head(bucket: bucket, key: key)
        } catch {
            throw .sourceUnavailable(reason: "the photo store \(location) did not answer")
        }
        guard let info else { throw .notFound }
        return Object(key: key, info: info)
    }

    /// The object's bytes, read on this (worker) thread; at most `maxBytes`.
    /// - Throws: `ImageInputError` for an object that is gone or too large,
    ///   `ThumbRequestError.sourceUnavailable` when the store does not answer.
    public func bytes(of object: Object, maxBytes: Int) throws -> ImageData {
        let name = "s3://\(bucket)/\(object.key)"
        guard object.info.size <= maxBytes else {
            throw ImageInputError.fileTooLarge(file: name, bytes: object.info.size, limit: maxBytes)
        }
        let fetched = S3Client.blocking { [client, bucket] in
            try await client.get(bucket: bucket, key: object.key)
        }
        switch fetched {
        case .success(let bytes?):
            guard bytes.count <= maxBytes else {
                throw ImageInputError.fileTooLarge(file: name, bytes: bytes.count, limit: maxBytes)
            }
            return ImageData(copying: bytes, name: name)
        case .success(nil):
            throw ImageInputError.unreadable(file: name, reason: "the object is gone")
        case .failure:
            throw ThumbRequestError.sourceUnavailable(reason: "the photo store \(location) did not answer")
        }
    }
}
