import RenderCache

/// The cache in an S3 bucket (`s3://bucket/prefix`), behind the `CacheStore` protocol:
/// objects at `PREFIX/v1/<first 2 hex>/<key>`, written with `If-None-Match: *` (a 412 means
/// another node stored the same content-addressed key first: a success) and the payload's
/// SHA-256 for the store to check; every object read is verified again above the store
/// (`ContentCache`). Eviction is the bucket's lifecycle rule, so `touch` does nothing.
///
/// The protocol's calls block (they are made from worker threads); each waits for its
/// request on Swift's concurrency pool.
public struct S3Store: CacheStore {
    /// The client that talks to the store.
    public let client: S3Client
    /// The bucket.
    public let bucket: String
    /// The key prefix, without slashes at either end ("" for none).
    public let prefix: String
    /// The failures of this run (see `S3Health`).
    public let health: S3Health

    /// - Parameter health: how failures are remembered (default: a store that fails is given
    ///   up for the whole process, as a batch wants).
    public init(client: S3Client, bucket: String, prefix: String = "", health: S3Health = S3Health()) {
        self.client = client
        self.health = health
        self.bucket = bucket
        self.prefix = prefix.split(separator: "/").joined(separator: "/")
    }

    public var location: String { "s3://\(bucket)/\(prefix)" }

    /// The object name of `key`.
    public func objectName(_ key: CacheKey) -> String {
        (prefix.isEmpty ? "" : prefix + "/") + "v1/\(key.hex.prefix(2))/\(key.hex)"
    }

    public func get(_ key: CacheKey) throws(CacheError) -> [UInt8]? {
        try wait(reading: true) { try await client.get(bucket: bucket, key: objectName(key)) }
    }

    public func put(_ object: [UInt8], for key: CacheKey) throws(CacheError) -> PutOutcome {
        try wait(reading: false) {
            try await client.putIfAbsent(bucket: bucket, key: objectName(key), body: object)
                ? .stored : .alreadyPresent
        }
    }

    /// Asks the store once whether it answers and accepts this node's credentials: a signed
    /// `HeadObject` of a name that need not exist (a missing object is an answer). A failure
    /// is recorded in `health`, so a node with a wrong secret and a warm disk cache is told
    /// before its batch, not at its first miss (or never).
    /// - Returns: the failure, or nil when the store answered.
    public func probe() async -> S3Error? {
        do throws(S3Error) {
            _ = try await client.head(bucket: bucket, key: (prefix.isEmpty ? "" : prefix + "/") + "v1/probe")
            return nil
        } catch {
            health.record(error)
            return error
        }
    }

    /// Nothing: objects age out by the bucket's lifecycle rule (README: "Scaling out").
    public func touch(_ key: CacheKey) {}

    public func remove(_ key: CacheKey) throws(CacheError) {
        try wait(reading: false) { try await client.delete(bucket: bucket, key: objectName(key)) }
    }

    public func list() throws(CacheError) -> [StoredObject] {
        let base = (prefix.isEmpty ? "" : prefix + "/") + "v1/"
        return try wait(reading: true) {
            try await client.list(bucket: bucket, prefix: base).compactMap { object in
                CacheKey(hex: String(object.key.split(separator: "/").last ?? ""))
                    .map { StoredObject(key: $0, size: object.size, lastUsed: 0) }
            }
        }
    }

    /// Runs `operation` and blocks this (worker) thread until it ends.
    private func wait<T: Sendable>(reading: Bool, _ operation: @escaping @Sendable () async throws -> T)
        throws(CacheError) -> T
    {
        if let down = health.down { throw Self.cacheError(down, reading: reading, location: location) }
        switch S3Client.blocking(operation) {
        case .success(let value): return value
        case .failure(let error):
            health.record(error)
            throw Self.cacheError(error, reading: reading, location: location)
        }
    }

    /// The cache's error for an S3 failure.
    private static func cacheError(_ error: S3Error, reading: Bool, location: String) -> CacheError {
        reading
            ? .unreadable(path: location, reason: error.description)
            : .unwritable(path: location, reason: error.description)
    }
}
