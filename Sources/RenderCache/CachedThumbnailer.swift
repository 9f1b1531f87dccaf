import CardKit
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The GD-style thumbnailer in front of the disk cache: work done once is never done again.
public struct CachedThumbnailer: Sendable {
    /// The thumbnailer that renders on a miss.
    public let thumbnailer: Thumbnailer
    /// The cache.
    public let cache: DiskCache

    public init(thumbnailer: Thumbnailer, cache: DiskCache) {
        self.thumbnailer = thumbnailer
        self.cache = cache
    }

    /// Everything that decides a thumbnail's bytes, besides the input's content.
    struct Recipe: Encodable {
        let kind = "thumbnail-v1"
        let width: Int
        let enlarge: Bool
        let encode: EncodeOptions
        let maxPixels: Int
        let maxFileBytes: Int
        let damage: String
    }

    private struct Metadata: Codable {
        var width: Int
        var height: Int
        var warning: String?
    }

    /// The cache key of a thumbnail of the input whose content digest is `inputDigest`.
    public func key(inputDigest: String, width: Int, enlarge: Bool, options: EncodeOptions) throws -> CacheKey {
        let policy = thumbnailer.policy
        let recipe = Recipe(
            width: width, enlarge: enlarge, encode: options, maxPixels: policy.maxPixels,
            maxFileBytes: policy.maxFileBytes, damage: policy.damage.rawValue)
        return try CacheKey(inputDigest: inputDigest, recipe: recipe, versions: CacheVersions.current)
    }

    /// A thumbnail of the file at `path`: from the cache when it holds one for these bytes
    /// and settings, rendered and stored otherwise.
    /// - Returns: the thumbnail, its cache key and whether it came from the cache.
    /// - Throws: as `Thumbnailer.thumbnail(file:...)`, plus `CacheError` for an unreadable input.
    public func thumbnail(
        file path: String, width: Int, enlarge: Bool = false, options: EncodeOptions = EncodeOptions()
    ) throws -> CachedThumbnail {
        guard (1...thumbnailer.maxWidth).contains(width) else {
            throw ThumbnailError.widthOutOfRange(received: width, maximum: thumbnailer.maxWidth)
        }
        let key = try key(inputDigest: cache.digest(ofFile: path), width: width, enlarge: enlarge, options: options)
        if let entry = cache.entry(for: key), let image = entry.part("image"),
            let metadata = try? JSONDecoder().decode(Metadata.self, from: entry.metadata)
        {
            let thumbnail = Thumbnail(
                data: image, width: metadata.width, height: metadata.height, format: options.format,
                warning: metadata.warning)
            return CachedThumbnail(thumbnail: thumbnail, key: key, cached: true)
        }
        let thumbnail = try thumbnailer.thumbnail(file: path, width: width, enlarge: enlarge, options: options)
        let metadata = try JSONEncoder().encode(
            Metadata(width: thumbnail.width, height: thumbnail.height, warning: thumbnail.warning))
        cache.storeIfPossible(CacheEntry(parts: [("image", thumbnail.data)], metadata: metadata), for: key)
        return CachedThumbnail(thumbnail: thumbnail, key: key, cached: false)
    }
}

/// A thumbnail with the cache key it is stored under.
public struct CachedThumbnail: Sendable {
    /// The thumbnail.
    public let thumbnail: Thumbnail
    /// Its cache key (input digest + recipe + versions): the same key, the same bytes.
    public let key: CacheKey
    /// Whether it came from the cache rather than being rendered now.
    public let cached: Bool
}

/// The versions that every cache key includes.
public enum CacheVersions {
    /// `cardrender <version> libvips <version>`.
    public static var current: String { "cardrender \(CardRenderVersion.string) libvips \(Vips.version)" }
}
