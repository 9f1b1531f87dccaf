import RenderCache
import Thumbnails

/// A thumbnail with the cache key it is stored under.
public struct CachedThumbnail: Sendable {
    /// The thumbnail.
    public let thumbnail: Thumbnail
    /// Its cache key (input digest + recipe + versions); nil when no cache was used.
    public let key: CacheKey?
    /// Whether it came from the cache rather than being rendered now.
    public let cached: Bool
}
