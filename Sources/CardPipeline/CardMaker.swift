import CardKit
import ImageCore
import RenderCache

/// A card made from a photo's bytes and a spec through the content cache: the one place
/// that says how a card is keyed, rendered and turned into an entry. `cardrender render`'s
/// batch (which reads the photo through `CachedRendering` with these), the postcard
/// service's queue and the tests all make cards through it, and the lookup, render and
/// store are `CachedRendering`'s alone, so the same photo and spec give the same bytes (and
/// the same cache entry) everywhere.
public struct CardMaker: Sendable {
    /// The renderer (frames, limits, print file).
    public let renderer: CardRenderer
    /// The cache, or nil to render every card.
    public let cache: ContentStore?

    public init(renderer: CardRenderer, cache: ContentStore?) {
        self.renderer = renderer
        self.cache = cache
    }

    /// A card and where it came from.
    public struct Made: Sendable {
        /// The card.
        public let card: FinishedCard
        /// Its cache key (nil without a cache).
        public let key: CacheKey?
        /// Whether it came from the cache.
        public let cached: Bool
    }

    /// The cache key of the card `spec` makes of a photo whose content digest is `digest`.
    /// - Throws: what reading the spec's fonts throws (`CardRecipe`).
    public func key(digest: String, spec: CardSpec, cache: ContentStore) throws -> CacheKey {
        try CacheKey(
            inputDigest: digest, recipe: CardRecipe(spec: spec, renderer: renderer, memo: cache.memo),
            versions: CacheVersions.current)
    }

    /// The card stored under `key`, or nil when there is none (or it is not a whole card).
    public func stored(_ key: CacheKey) -> FinishedCard? {
        cache?.entries.entry(for: key).flatMap(FinishedCard.init(entry:))
    }

    /// Renders the card (no cache involved).
    /// - Throws: what `CardRenderer.render` throws.
    public func render(photo: ImageData, spec: CardSpec, specFile: String) throws -> FinishedCard {
        FinishedCard(try renderer.render(photo: photo, spec: spec, specFile: specFile))
    }

    /// Stores a card under `key` (already there from another writer: done).
    /// - Throws: `CacheError` when the store cannot be written: an order's card must be kept.
    public func store(_ card: FinishedCard, for key: CacheKey) throws {
        _ = try cache?.entries.store(try card.entry(), for: key)
    }

    /// The card of `photo` (whose content digest is `digest`) and `spec`: from the cache,
    /// or rendered and stored, through the batch's own `CachedRendering`.
    /// - Throws: what `CardRenderer.render` throws; `CacheError` when the card cannot be stored.
    public func card(photo: ImageData, digest: String, spec: CardSpec, specFile: String) throws -> Made {
        let result = try CachedRendering(cache: cache, maxBytes: .max).run(
            bytes: photo, digest: digest, mustStore: true,
            key: { digest, cache in try key(digest: digest, spec: spec, cache: cache) },
            fromEntry: FinishedCard.init(entry:),
            render: { data, _ in try render(photo: data, spec: spec, specFile: specFile) },
            toEntry: { try $0.entry() })
        return Made(card: result.output, key: result.key, cached: result.cached)
    }
}
