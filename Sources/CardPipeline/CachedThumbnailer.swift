import CardKit
import RenderCache
import VipsKit

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
    public let cache: LocalCache?

    public init(thumbnailer: Thumbnailer, cache: LocalCache?) {
        self.thumbnailer = thumbnailer
        self.cache = cache
    }

    private struct Metadata: Codable {
        var width: Int
        var height: Int
        var path: RenderPath
        var warning: String?
    }

    /// The cache key of a thumbnail of the input whose content digest is `inputDigest`.
    public func key(inputDigest: String, width: Int, enlarge: Bool, options: EncodeOptions) throws -> CacheKey {
        let recipe = ThumbnailRecipe(
            width: width, enlarge: enlarge, options: options, policy: thumbnailer.policy, engine: thumbnailer.engine)
        return try CacheKey(inputDigest: inputDigest, recipe: recipe, versions: CacheVersions.current)
    }

    /// A thumbnail of the file at `path`, which is read once: from the cache when it holds
    /// one for these bytes and settings, rendered from the bytes read and stored otherwise.
    /// - Returns: the thumbnail, its cache key (nil without a cache) and whether it came
    ///   from the cache.
    /// - Throws: as `Thumbnailer.thumbnail(of:...)`, plus `ImageInputError` for an
    ///   unreadable, empty or over-size file.
    public func thumbnail(
        file path: String, width: Int, enlarge: Bool = false, options: EncodeOptions = EncodeOptions()
    ) throws -> CachedThumbnail {
        guard (1...thumbnailer.maxWidth).contains(width) else {
            throw ThumbnailError.widthOutOfRange(received: width, maximum: thumbnailer.maxWidth)
        }
        let rendering = CachedRendering(cache: cache, maxBytes: thumbnailer.policy.maxFileBytes)
        let result = try rendering.run(
            path: path,
            key: { digest, _ in try key(inputDigest: digest, width: width, enlarge: enlarge, options: options) },
            fromEntry: { entry -> Thumbnail? in
                guard let image = entry.part("image"),
                    let metadata = try? JSONDecoder().decode(Metadata.self, from: entry.metadata)
                else { return nil }
                return Thumbnail(
                    data: image, width: metadata.width, height: metadata.height, format: options.format,
                    path: metadata.path, warning: metadata.warning)
            },
            render: { try thumbnailer.thumbnail(of: $0, width: width, enlarge: enlarge, options: options) },
            toEntry: { thumbnail in
                let metadata = try JSONEncoder().encode(
                    Metadata(
                        width: thumbnail.width, height: thumbnail.height, path: thumbnail.path,
                        warning: thumbnail.warning))
                return CacheEntry(parts: [("image", thumbnail.data)], metadata: metadata)
            })
        return CachedThumbnail(thumbnail: result.output, key: result.key, cached: result.cached)
    }
}
