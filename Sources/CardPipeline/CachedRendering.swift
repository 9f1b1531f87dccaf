import CardKit
import FileUtilities
import ImageCore
import RenderCache
import SystemPackage

/// Renders an input file through the cache, reading it once.
///
/// The file is opened once. Its content digest comes from the `DigestMemo` while its stamp
/// (device, inode, size, modification time, read with `fstat` from the open file) is
/// unchanged, else from its bytes. On a miss, exactly the bytes that are rendered are
/// hashed and the result is stored under the key those bytes make: a file replaced while
/// we work can never be rendered under another file's key.
struct CachedRendering {
    /// The cache, or nil to render without one.
    let cache: ContentStore?
    /// The largest input accepted, in bytes.
    let maxBytes: Int

    /// The output for the input at `path`: from the cache, or rendered and stored.
    /// - Parameters:
    ///   - open: opens the input (default: by its path); called once.
    ///   - key: the cache key for an input digest (and the cache, for other inputs' digests).
    ///   - fromEntry: the output a cache entry holds (nil: unusable, render again).
    ///   - render: renders the input's bytes (given with their content digest when known).
    ///   - toEntry: the cache entry for a rendered output.
    /// - Returns: the output, its key (nil without a cache) and whether it came from the cache.
    /// - Throws: `ImageInputError` for an unreadable input, and what `render` throws.
    func run<Output>(
        path: String,
        open: ((String) throws -> FileDescriptor)? = nil,
        key: (_ digest: String, _ cache: ContentStore) throws -> CacheKey,
        fromEntry: (CacheEntry) -> Output?,
        render: (ImageData, _ digest: String?) throws -> Output,
        toEntry: (Output) throws -> CacheEntry
    ) throws -> (output: Output, key: CacheKey?, cached: Bool) {
        let descriptor: FileDescriptor
        do {
            descriptor = try open?(path) ?? FileDescriptor.open(path, .readOnly, options: .closeOnExec)
        } catch let error as CardSpecError {
            throw error
        } catch {
            throw ImageInputError.unreadable(file: path, reason: Self.text(error))
        }
        defer { try? descriptor.close() }
        guard let cache else {
            return (try render(ImageData(reading: descriptor, name: path, maxBytes: maxBytes), nil), nil, false)
        }
        let stamp: FileStamp
        do {
            stamp = try FileStamp(of: descriptor)
        } catch {
            throw ImageInputError.unreadable(file: path, reason: Self.text(error))
        }
        var data: ImageData?
        var digest: String
        if let remembered = cache.memo.digest(for: stamp) {
            digest = remembered
        } else {
            let read = try ImageData(reading: descriptor, name: path, maxBytes: maxBytes)
            digest = read.withUnsafeBytes { ContentDigest.of($0) }
            cache.memo.remember(digest, for: stamp)
            data = read
        }
        var entryKey = try key(digest, cache)
        if let entry = cache.entries.entry(for: entryKey), let output = fromEntry(entry) {
            return (output, entryKey, true)
        }
        let bytes: ImageData
        if let data {
            bytes = data
        } else {
            bytes = try ImageData(reading: descriptor, name: path, maxBytes: maxBytes)
            let actual = bytes.withUnsafeBytes { ContentDigest.of($0) }
            if actual != digest {
                // Rewritten in place without a new stamp: these bytes decide the key.
                digest = actual
                cache.memo.remember(digest, for: stamp)
                entryKey = try key(digest, cache)
            }
        }
        let output = try render(bytes, digest)
        cache.entries.storeIfPossible(try toEntry(output), for: entryKey)
        return (output, entryKey, false)
    }

    /// The output for bytes already in memory whose content digest is known (a photo the
    /// postcard service keeps): from the cache, or rendered and stored. The same lookup,
    /// render and store as `run(path:)`, without the file.
    /// - Parameter mustStore: a store that fails throws (an order's card must be kept);
    ///   otherwise it is logged by the cache and the output still returned.
    /// - Throws: what `key`, `render` and `toEntry` throw; `CacheError` when `mustStore`.
    func run<Output>(
        bytes: ImageData, digest: String, mustStore: Bool,
        key: (_ digest: String, _ cache: ContentStore) throws -> CacheKey,
        fromEntry: (CacheEntry) -> Output?,
        render: (ImageData, _ digest: String?) throws -> Output,
        toEntry: (Output) throws -> CacheEntry
    ) throws -> (output: Output, key: CacheKey?, cached: Bool) {
        guard let cache else { return (try render(bytes, digest), nil, false) }
        let entryKey = try key(digest, cache)
        if let entry = cache.entries.entry(for: entryKey), let output = fromEntry(entry) {
            return (output, entryKey, true)
        }
        let output = try render(bytes, digest)
        if mustStore {
            _ = try cache.entries.store(try toEntry(output), for: entryKey)
        } else {
            cache.entries.storeIfPossible(try toEntry(output), for: entryKey)
        }
        return (output, entryKey, false)
    }

    private static func text(_ error: Error) -> String {
        (error as? Errno).map { "\($0)" } ?? "\(error)"
    }
}
