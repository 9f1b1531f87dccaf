import CardKit
import CardPipeline
import HTTPTypes
import ImageCore
import Logging
import NIOPosix
import PhotoSources
import PressKit
import RenderCache
import Synchronization
import Thumbnails
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The postcard service's work, behind `/v1` (`PostcardAPI`) and the queue (`CardQueue`):
/// photos in the content store, previews, orders, renders, print runs.
///
/// Photos and finished cards are kept in a `ContentStore` under the data directory (and in
/// the shared bucket, when one is given, so that every node reads what any node stored);
/// the service never collects that store's garbage: it holds orders, not a cache.
public final class PostcardService: Sendable {
    /// What a service is made of.
    public struct Configuration: Sendable {
        /// The database.
        public var database: any ServiceDatabase
        /// Photos and finished cards.
        public var store: ContentStore
        /// The base settings of every renderer (limits, engine); each press sets its print file.
        public var settings: CardSettings
        /// The frames.
        public var catalogue: FrameCatalogue?
        /// What one spec may ask for.
        public var limits: CardLimits
        /// The PDF presses by name (`rgb-jpeg` is always there).
        public var presses: [String: PressProfile]
        /// Threads rendering previews (each a core).
        public var previewThreads: Int
        /// Cards rendered at once by this node's queue.
        public var renderThreads: Int
        /// Decodes kept for the next preview of the same photo, in bytes.
        public var decodedPhotoBytes: Int
        /// How long a claimed card is this node's before another may take it over.
        public var lease: Duration
        /// This node's name in the queue's leases (which node renders a card).
        public var nodeName: String
        /// How webhooks are sent.
        public var webhooks = WebhookSettings()
        /// How long events are kept (`serve --keep-events`, 30 days): older ones, their
        /// deliveries and the deliveries finished before then are purged every hour.
        public var keepEvents: Duration = .seconds(30 * 86_400)
        /// What each key's scans may cost, in seconds of a worker thread (decoding and
        /// searching): `burst` at once, then `perSecond` a second; past it a key's scans are
        /// 429 until its budget is back (one key cannot keep the preview threads busy).
        public var scanBudget: (burst: Double, perSecond: Double) = (30, 0.5)

        public init(
            database: any ServiceDatabase, store: ContentStore, settings: CardSettings = .init(),
            catalogue: FrameCatalogue?, limits: CardLimits = .default, presses: [String: PressProfile] = [:],
            previewThreads: Int = 2, renderThreads: Int = 1, decodedPhotoBytes: Int = 384 << 20,
            lease: Duration = .seconds(60), nodeName: String = "node"
        ) {
            self.database = database
            self.store = store
            self.settings = settings
            self.catalogue = catalogue
            self.limits = limits
            self.presses = presses
            self.previewThreads = previewThreads
            self.renderThreads = renderThreads
            self.decodedPhotoBytes = decodedPhotoBytes
            self.lease = lease
            self.nodeName = nodeName
        }
    }

    public let configuration: Configuration
    public let book: OrderBook
    let decoded: DecodedPhotos
    let previewPool: NIOThreadPool
    let renderPool: NIOThreadPool
    let logger: Logger
    /// The secret that signs the cards' codes, once read (it never changes).
    private let codeSecret = Mutex<[UInt8]?>(nil)
    /// The service's metrics (`/metrics`).
    public let metrics = PostcardMetrics()
    /// Each key's scans' budget of worker seconds.
    let scanBudget: RateLimiter
    /// The lookups of webhook endpoints' hosts (endpoints made, and each attempt).
    let hostLookups: HostLookups
    /// The preview threads' work (uploads' checks, previews, placements, scans, moving copies),
    /// taking turns between keys: a freed thread goes to the waiting key that holds fewest.
    let work: FairPermits
    /// The name of the default press (today's RGB JPEG print file).
    public static let rgbJPEG = PressProfile.rgbJPEGName
    /// Largest spec or order body, in bytes (as `render`'s spec files).
    public static let maxSpecBytes = CardBatch.maxSpecBytes

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        book = OrderBook(database: configuration.database)
        scanBudget = RateLimiter(
            rate: configuration.scanBudget.perSecond, burst: configuration.scanBudget.burst,
            maxDebt: configuration.scanBudget.burst)
        // Every thread may go to one key while no other waits (a preview is short): turns, not
        // a reserve.
        work = FairPermits(
            max(1, configuration.previewThreads), perOwner: max(1, configuration.previewThreads),
            maxWait: .seconds(10))
        // One key's attempts hold at most its share of senders' lookups; 8 more for the others.
        hostLookups = HostLookups(
            threads: configuration.webhooks.perOwner + 8, perOwner: configuration.webhooks.perOwner,
            timeout: configuration.webhooks.lookupTimeout)
        // An editor on a 12 MP photo keeps its levels (2 to 12 MB, at 1/1 up to 36 MB) and its
        // bytes (3 to 4 MB): 20 editors under the default 384 MiB (benchmarks/previews.sh).
        decoded = DecodedPhotos(capacity: configuration.decodedPhotoBytes, largestShare: 3)
        previewPool = NIOThreadPool(numberOfThreads: max(1, configuration.previewThreads))
        renderPool = NIOThreadPool(numberOfThreads: max(1, configuration.renderThreads))
        previewPool.start()
        renderPool.start()
        self.logger = logger
        if let catalogue = configuration.catalogue {
            catalogue.keepArt(in: CachedFrameArt(cache: configuration.store))
        }
    }

    /// Stops the thread pools.
    public func shutdown() async {
        try? await previewPool.shutdownGracefully()
        try? await renderPool.shutdownGracefully()
        await hostLookups.shutdown()
        await configuration.database.close()
    }

    /// The renderer of press `name`, or nil when there is no such press.
    func renderer(press name: String) -> CardRenderer? {
        var settings = configuration.settings
        if name == Self.rgbJPEG {
            settings.printFile = .jpeg
        } else if let press = configuration.presses[name] {
            settings.printFile = .pdf(press, quality: 92)
        } else {
            return nil
        }
        return CardRenderer(catalogue: configuration.catalogue, settings: settings, limits: configuration.limits)
    }

    /// Runs `body` on a preview thread once `owner`'s turn comes.
    /// - Throws: `Problem` 503 with `Retry-After` when no thread came free within 10 s; what
    ///   `body` throws.
    func onPreviewThread<T: Sendable>(for owner: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        do {
            return try await work.run(owner: owner) { try await previewPool.runIfActive(body) }
        } catch let busy as FairPermits.Busy {
            metrics.workersBusy()
            throw Problem.retryLater(
                "Every worker of this server is busy with other keys' work; retry after \(busy.retryAfter) s.",
                after: busy.retryAfter, status: .serviceUnavailable)
        }
    }

    /// The press names, `rgb-jpeg` first.
    var pressNames: [String] { [Self.rgbJPEG] + configuration.presses.keys.sorted() }

    // MARK: Photos

    /// A photo stored by its content digest.
    struct StoredPhoto: Sendable {
        let digest: String
        let width: Int
        let height: Int
        let format: String
        let isNew: Bool
    }

    /// Checks `bytes` as `render` would (format, size, pixels) and stores them for `owner`.
    /// - Throws: `Problem` 422 for a photo `render` refuses (the reason named).
    func storePhoto(_ bytes: Data, owner: String) async throws -> StoredPhoto {
        let digest = ContentDigest.of(bytes)
        let photo = ImageData(copying: bytes, name: "the uploaded photo")
        let header: ImageHeader
        do {
            header = try await previewPool.runIfActive { [configuration] in
                try photo.photoHeader(policy: configuration.settings.policy)
            }
        } catch let error as ImageInputError {
            throw Problem(.unprocessableContent, "The photo is refused: \(error)")
        } catch let error as VipsError {
            // libvips read the header (a format libjpeg does not take) and refused it.
            throw Problem(.unprocessableContent, "The photo is refused: libvips cannot read it (\(error)).")
        }
        // Decoded whole now, as `render` would decode it, so a damaged photo is refused here
        // rather than by the queue after the order was accepted.
        do {
            _ = try await onPreviewThread(for: owner) { [configuration] in
                try Thumbnailer(policy: configuration.settings.policy).thumbnail(
                    of: photo, width: 64, options: EncodeOptions(format: .jpeg))
            }
        } catch let error as ImageInputError {
            throw Problem(.unprocessableContent, "The photo is refused: \(error)")
        } catch let error as VipsError {
            throw Problem(
                .unprocessableContent, "The photo is refused: its pixels cannot be decoded (\(error.message)).")
        }
        guard let key = CacheKey(hex: digest) else { preconditionFailure("a SHA-256 digest is 64 hex digits") }
        do {
            try await previewPool.runIfActive { [configuration] in
                _ = try configuration.store.entries.store(CacheEntry(parts: [("photo", bytes)]), for: key)
            }
        } catch let error as CacheError {
            throw Self.storeDown(error)
        }
        let isNew = try await book.addPhoto(
            owner: owner, digest: digest, width: header.uprightWidth, height: header.uprightHeight,
            format: header.format.rawValue)
        warmPreviews(photo: ImageData(copying: bytes, name: "photo \(digest)"), digest: digest, owner: owner)
        return StoredPhoto(
            digest: digest, width: header.uprightWidth, height: header.uprightHeight, format: header.format.rawValue,
            isNew: isNew)
    }

    /// Makes, after the upload's answer, the decode level the photo's first preview reads (a
    /// cover without a frame: the level most first gestures read), and keeps the photo's
    /// bytes: the editor's first preview then decodes nothing. A failure here is the first
    /// preview's to report; the bytes are the same either way.
    private func warmPreviews(photo: ImageData, digest: String, owner: String) {
        guard let renderer = renderer(press: Self.rgbJPEG) else { return }
        let decoded = decoded
        decoded.keepPhoto(photo, digest: digest)
        Task.detached(priority: .low) {
            _ = try? await self.onPreviewThread(for: owner) {
                try renderer.preview(
                    photo: photo, digest: digest, spec: CardSpec(), side: .front, specFile: "spec", decoded: decoded)
            }
        }
    }

    /// Photo `digest` upright, `width` pixels wide (never wider than it is), as a JPEG: the
    /// studio's moving copy of a photo the browser cannot decode.
    func reducedPhoto(_ digest: String, width: Int, owner: String) async throws -> Data {
        do {
            return try await onPreviewThread(for: owner) { [configuration, decoded] in
                try Thumbnailer(policy: configuration.settings.policy, decodedPhotos: decoded).thumbnail(
                    of: try self.photoBytes(digest), width: width, options: EncodeOptions(format: .jpeg, quality: 82),
                    digest: digest
                ).data
            }
        } catch {
            throw Self.refusal(error) ?? error
        }
    }

    /// The bytes of `owner`'s photo `digest` (blocking: call on a pool thread).
    /// - Throws: `Problem` 404 when the owner has none by that id, 503 when the store lost it.
    func photoBytes(_ digest: String) throws -> ImageData {
        if let kept = decoded.photo(digest: digest) { return kept }
        guard let key = CacheKey(hex: digest), let entry = configuration.store.entries.entry(for: key),
            let bytes = entry.part("photo")
        else {
            throw Problem(.serviceUnavailable, "The photo \(digest) cannot be read from the store now; retry later.")
        }
        let photo = ImageData(copying: bytes, name: "photo \(digest)")
        decoded.keepPhoto(photo, digest: digest)
        return photo
    }

    /// The secret that signs the cards' codes (`OrderBook.codeSecret`), read from the
    /// database once.
    func cardCodeSecret() async throws -> [UInt8] {
        if let kept = codeSecret.withLock({ $0 }) { return kept }
        let secret = try await book.codeSecret()
        codeSecret.withLock { $0 = secret }
        return secret
    }

    // MARK: Specs

    /// A card spec from an API body: parsed and checked as `render` checks a spec file,
    /// its `photo` one of `owner`'s photos.
    /// - Parameter prefix: where the spec is in the body (`spec.` in an order, nothing when
    ///   the body is the spec), put before the fields named in errors.
    /// - Throws: `Problem` 422 naming the field, 404 for a photo this key does not have.
    func spec(_ json: Data, owner: String, prefix: String = "") async throws -> (CardSpec, digest: String) {
        var spec: CardSpec
        do {
            spec = try CardSpec.parse(json, file: "spec")
        } catch {
            throw Self.problem(error, prefix: prefix)
        }
        // Every card of the service has its code on the back: checks and previews lay the
        // back out around one (the placeholder: the same size, no card's).
        spec.backCode = CardCode.placeholder
        guard let photo = spec.photo else {
            throw Problem(
                .unprocessableContent,
                "\(prefix)photo must be the id of a photo this API key uploaded (POST /v1/photos).",
                errors: [Problem.FieldError(field: prefix + "photo", detail: "missing")])
        }
        // Another key's photo is not found, as one that does not exist.
        guard CacheKey(hex: photo) != nil, try await book.photo(owner: owner, digest: photo) != nil else {
            throw Problem(
                .notFound,
                "The photo \(photo) was not found: \(prefix)photo must be the id of a photo this API key uploaded.",
                errors: [Problem.FieldError(field: prefix + "photo", detail: "no photo of this key has that id")])
        }
        return (spec, photo)
    }

    /// A `CardSpecError`, `ImageInputError` or libvips's refusal met while rendering, as a
    /// 422; a store that cannot be written or read, as a 503.
    static func refusal(_ error: any Error, prefix: String = "") -> Problem? {
        switch error {
        case let error as CardSpecError: problem(error, prefix: prefix)
        case let error as ImageInputError: Problem(.unprocessableContent, "The photo is refused: \(error)")
        case let error as VipsError:
            Problem(.unprocessableContent, "The photo cannot be rendered: libvips refuses it (\(error)).")
        case let error as CacheError: storeDown(error)
        default: nil
        }
    }

    /// 422 for a spec's error, with its field's path (after `prefix`, the spec's place in the body).
    static func problem(_ error: CardSpecError, prefix: String = "") -> Problem {
        Problem(
            .unprocessableContent, "The spec is refused: \(prefix + error.field): \(error.problem)",
            errors: [Problem.FieldError(field: prefix + error.field, detail: error.problem)])
    }

    /// 503 for a store that cannot be used now, with a time to retry.
    static func storeDown(_ error: CacheError) -> Problem {
        Problem.retryLater(
            "The store cannot be used now (\(error)); retry later.", after: 30, status: .serviceUnavailable)
    }

    // MARK: Previews

    /// The sample image of `side` of the card `spec` makes, as `render` writes it.
    func preview(_ json: Data, side: CardRenderer.PreviewSide, owner: String) async throws -> Data {
        let (spec, digest) = try await spec(json, owner: owner)
        guard let renderer = renderer(press: Self.rgbJPEG) else { preconditionFailure("rgb-jpeg is always a press") }
        let started = ContinuousClock.now
        do {
            let jpeg = try await onPreviewThread(for: owner) { [decoded] in
                let photo = try self.photoBytes(digest)
                return try renderer.preview(
                    photo: photo, digest: digest, spec: spec, side: side, specFile: "spec", decoded: decoded)
            }
            metrics.preview(ContinuousClock.now - started)
            return jpeg
        } catch {
            throw Self.refusal(error) ?? error
        }
    }

    /// Where the spec's photo would start in its window (`"transform": "auto"`), and why.
    /// - Throws: `Problem` for a spec, photo or key refused; what the renderer throws else.
    func firstPlacement(_ json: Data, owner: String) async throws -> FirstPlacement {
        let (spec, digest) = try await spec(json, owner: owner)
        guard let renderer = renderer(press: Self.rgbJPEG) else { preconditionFailure("rgb-jpeg is always a press") }
        do {
            return try await onPreviewThread(for: owner) {
                try renderer.firstPlacement(photo: try self.photoBytes(digest), spec: spec, specFile: "spec")
            }
        } catch {
            throw Self.refusal(error) ?? error
        }
    }

    /// The width frame thumbnails are drawn at once per frame (and kept by the catalogue);
    /// smaller ones are reduced from it, so no width asked for adds to what is kept.
    static let frameThumbnailWidth = 480

    /// A frame's art, `width` px wide (at most `frameThumbnailWidth`), flattened onto a light
    /// grey, as PNG (nil: no such frame).
    func frameThumbnail(_ id: String, width: Int) async throws -> Data? {
        guard let catalogue = configuration.catalogue, let frame = catalogue.frame(id) else { return nil }
        return try await previewPool.runIfActive {
            let full = Self.frameThumbnailWidth
            let height = Int((Double(full) * Double(frame.preview.height) / Double(frame.preview.width)).rounded())
            var art = try catalogue.art(frame, width: full, height: max(1, height)).flattened(onto: [236, 236, 236])
            if width != full { art = try art.resized(scale: Double(width) / Double(full)) }
            return try art.encoded(EncodeOptions(format: .png))
        }
    }
}
