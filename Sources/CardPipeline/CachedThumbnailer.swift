import ImageCore
import PhotoSources
import RenderCache
import SystemPackage
import Thumbnails

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The GD-style thumbnailer in front of the cache: work done once is never done again.
public struct CachedThumbnailer: Sendable {
    /// The thumbnailer that renders on a miss.
    public let thumbnailer: Thumbnailer
    /// The cache; nil renders every time.
    public let cache: ContentStore?

    public init(thumbnailer: Thumbnailer, cache: ContentStore?) {
        self.thumbnailer = thumbnailer
        self.cache = cache
    }

    private struct Metadata: Codable {
        var width: Int
        var height: Int
        var path: RenderPath
        var warning: String?
        /// Absent in entries of still images (and in every entry made before animations).
        var frames: Int?
        var sourceFrames: Int?
        /// Absent when it is the format's.
        var mimeType: String?
    }

    /// The cache key of a thumbnail of the input whose content digest is `inputDigest`.
    public func key(inputDigest: String, width: Int, enlarge: Bool, options: EncodeOptions) throws -> CacheKey {
        try key(inputDigest: inputDigest, request: ThumbnailRequest(width: width, enlarge: enlarge), options: options)
    }

    /// The cache key of the thumbnail `request` asks of the input whose digest is `inputDigest`.
    public func key(inputDigest: String, request: ThumbnailRequest, options: EncodeOptions) throws -> CacheKey {
        let recipe = ThumbnailRecipe(
            request: request, options: options, policy: thumbnailer.policy, engine: thumbnailer.engine)
        return try CacheKey(inputDigest: inputDigest, recipe: recipe, versions: CacheVersions.current)
    }

    /// A thumbnail of the file at `path`, which is read once: from the cache when it holds
    /// one for these bytes and settings, rendered from the bytes read and stored otherwise.
    /// `open`, when given, opens it instead of its path (a descriptor opened beneath a root).
    /// - Returns: the thumbnail, its cache key (nil without a cache) and whether it came
    ///   from the cache.
    /// - Throws: as `Thumbnailer.thumbnail(of:...)`, plus `ImageInputError` for an
    ///   unreadable, empty or over-size file.
    public func thumbnail(
        file path: String, open: ((String) throws -> FileDescriptor)? = nil, width: Int, enlarge: Bool = false,
        options: EncodeOptions = EncodeOptions()
    ) throws -> CachedThumbnail {
        try thumbnail(
            file: path, open: open, request: ThumbnailRequest(width: width, enlarge: enlarge), options: options)
    }

    /// As `thumbnail(file:open:width:enlarge:options:)`, for any request (a box, a
    /// placeholder, an animation).
    public func thumbnail(
        file path: String, open: ((String) throws -> FileDescriptor)? = nil, request: ThumbnailRequest,
        options: EncodeOptions = EncodeOptions()
    ) throws -> CachedThumbnail {
        try thumbnailer.check(request)
        let rendering = CachedRendering(cache: cache, maxBytes: thumbnailer.policy.maxFileBytes)
        let result = try rendering.run(
            path: path, open: open,
            key: { digest, _ in try key(inputDigest: digest, request: request, options: options) },
            fromEntry: { thumbnail(in: $0, format: options.format) },
            render: { try thumbnailer.thumbnail(of: $0, request: request, options: options, digest: $1) },
            toEntry: entry(for:))
        return CachedThumbnail(thumbnail: result.output, key: result.key, cached: result.cached)
    }

    /// A thumbnail of an input known by its content digest before its bytes are read (an
    /// object store says it): from the cache without calling `load`, or rendered from what
    /// `load` returns and stored under the key of those bytes (so a digest that turns out
    /// wrong, the object replaced meanwhile, never files a thumbnail under another input).
    /// - Throws: as `Thumbnailer.thumbnail(of:...)`, and what `load` throws.
    public func thumbnail(
        inputDigest digest: String, load: () throws -> ImageData, width: Int, enlarge: Bool = false,
        options: EncodeOptions = EncodeOptions()
    ) throws -> CachedThumbnail {
        try thumbnail(
            inputDigest: digest, load: load, request: ThumbnailRequest(width: width, enlarge: enlarge), options: options
        )
    }

    /// As `thumbnail(inputDigest:load:width:enlarge:options:)`, for any request.
    public func thumbnail(
        inputDigest digest: String, load: () throws -> ImageData, request: ThumbnailRequest,
        options: EncodeOptions = EncodeOptions()
    ) throws -> CachedThumbnail {
        try thumbnailer.check(request)
        guard let cache else {
            let made = try thumbnailer.thumbnail(of: load(), request: request, options: options)
            return CachedThumbnail(thumbnail: made, key: nil, cached: false)
        }
        let expected = try key(inputDigest: digest, request: request, options: options)
        if let entry = cache.entries.entry(for: expected), let made = thumbnail(in: entry, format: options.format) {
            return CachedThumbnail(thumbnail: made, key: expected, cached: true)
        }
        let bytes = try load()
        let actual = bytes.withUnsafeBytes { ContentDigest.of($0) }
        let stored =
            actual == digest ? expected : try key(inputDigest: actual, request: request, options: options)
        let made = try thumbnailer.thumbnail(of: bytes, request: request, options: options, digest: actual)
        cache.entries.storeIfPossible(try entry(for: made), for: stored)
        return CachedThumbnail(thumbnail: made, key: stored, cached: false)
    }

    /// The thumbnail a cache entry holds, or nil when the entry is not one.
    public func thumbnail(in entry: CacheEntry, format: OutputFormat) -> Thumbnail? {
        guard let image = entry.part(Self.imagePart),
            let metadata = try? JSONDecoder().decode(Metadata.self, from: entry.metadata)
        else { return nil }
        var thumbnail = Thumbnail(
            data: image, width: metadata.width, height: metadata.height, format: format, path: metadata.path,
            warning: metadata.warning)
        thumbnail.frames = metadata.frames ?? 1
        thumbnail.sourceFrames = metadata.sourceFrames ?? thumbnail.frames
        if let mimeType = metadata.mimeType { thumbnail.mimeType = mimeType }
        return thumbnail
    }

    /// The name of a thumbnail entry's image part (`CacheEntry.part`).
    public static let imagePart = "image"

    /// The cache entry of a thumbnail: the image and its metadata.
    private func entry(for thumbnail: Thumbnail) throws -> CacheEntry {
        let metadata = try JSONEncoder().encode(
            Metadata(
                width: thumbnail.width, height: thumbnail.height, path: thumbnail.path, warning: thumbnail.warning,
                frames: thumbnail.frames == 1 ? nil : thumbnail.frames,
                sourceFrames: thumbnail.sourceFrames == thumbnail.frames ? nil : thumbnail.sourceFrames,
                mimeType: thumbnail.mimeType == thumbnail.format.mimeType ? nil : thumbnail.mimeType))
        return CacheEntry(parts: [(Self.imagePart, thumbnail.data)], metadata: metadata)
    }
}
