import CardKit
import RenderCache

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Rendered frame art in the content cache (and so in the shared store, when there is one):
/// keyed by the art file's content digest, the recipe (frame, size, bleed) and the cache
/// versions; stored as two parts, `colour` (RGB) and `alpha`, with the size as metadata.
/// The content cache checks each entry's digest, and the catalogue checks the size.
public struct CachedFrameArt: FrameArtCache {
    /// The cache the art lives in.
    public let cache: ContentStore

    public init(cache: ContentStore) {
        self.cache = cache
    }

    private struct Size: Codable {
        var width: Int
        var height: Int
    }

    private func key(_ request: FrameArtRequest) -> CacheKey? {
        let digest = request.art.withUnsafeBytes { ContentDigest.of($0) }
        return try? CacheKey(inputDigest: digest, recipe: request.recipe, versions: CacheVersions.current)
    }

    public func load(_ request: FrameArtRequest) -> FrameOverlay? {
        guard let key = key(request), let entry = cache.entries.entry(for: key),
            let size = try? JSONDecoder().decode(Size.self, from: entry.metadata),
            let colour = entry.part("colour"), let alpha = entry.part("alpha")
        else { return nil }
        return FrameOverlay(
            width: size.width, height: size.height, colourPixels: [UInt8](colour), alphaPixels: [UInt8](alpha))
    }

    public func save(_ art: FrameOverlay, for request: FrameArtRequest) {
        guard let key = key(request),
            let metadata = try? JSONEncoder().encode(Size(width: art.width, height: art.height))
        else { return }
        cache.entries.storeIfPossible(
            CacheEntry(
                parts: [("colour", Data(art.colourPixels)), ("alpha", Data(art.alphaPixels))], metadata: metadata),
            for: key)
    }
}
