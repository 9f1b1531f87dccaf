import FastPath
import ImageCore
import VipsKit

/// The DCT-scaled decodes of the photos thumbnailed last, kept for the next widths of the
/// same photo, bounded in bytes.
///
/// A web page asks for one photo at several widths at once (`srcset`), and a server's miss
/// spends most of its time in libjpeg-turbo's Huffman decoding, which no DCT scale skips
/// (64 % of a miss's CPU, profiled; see RESULTS.md, issue 20). The decode at 1/8, 1/4 or 1/2
/// depends only on the photo's bytes and the scale, so another width at the same scale can
/// start from it and gives the same bytes as decoding again (tested). Keyed by the photo's
/// content digest, so a replaced photo is never confused with the old one. Decodes larger
/// than an eighth of the bound are not kept (a full-size decode of a 12 MP photo is 36 MB);
/// when the bytes pass the bound, the least recently used are dropped.
///
/// The postcard service's previews keep a card's decode levels here (`decode(digest:level:)`),
/// on the general executor libvips images (`keepImage`: a photo's whole decode in libvips's
/// memory), and the photos' encoded bytes (`keepPhoto`), all under the same bound.
public final class DecodedPhotos: Sendable {
    /// A photo decoded upright at one scale, with the decoder's warning (damaged data read
    /// leniently), which every thumbnail made from it repeats.
    public struct Decode: Sendable {
        public let image: MemoryImage
        public let warning: String?

        public init(image: MemoryImage, warning: String?) {
            self.image = image
            self.warning = warning
        }
    }

    /// What a slot holds: a decode for the fast path, an image in libvips's memory, or a
    /// photo's encoded bytes.
    private enum Kept: Sendable {
        case decode(Decode)
        case image(VImage)
        case photo(ImageData)

        package var bytes: Int {
            switch self {
            case .decode(let decode): decode.image.pixels.count
            case .image(let image): image.width * image.height * image.bands
            case .photo(let photo): photo.count
            }
        }
    }

    /// What is kept, by key (`digest shrink`, `digest level L`, `photo digest`, `image name`),
    /// bounded in bytes.
    private let memory: BoundedMemory<String, Kept>

    /// The bound in bytes.
    public var capacity: Int { memory.capacity }
    /// The largest decode kept, as a share of the bound (1/`largestShare`).
    public var largestShare: Int { memory.largestShare }

    /// - Parameters:
    ///   - capacity: the bound in bytes.
    ///   - largestShare: a decode larger than 1/`largestShare` of the bound is not kept (8:
    ///     a server's thumbnails, many photos at once; the postcard service's previews keep
    ///     a 12 MP photo's whole decode under a smaller share, since an editor works on one
    ///     photo at a time).
    public init(capacity: Int, largestShare: Int = 8) {
        memory = BoundedMemory(capacity: capacity, largestShare: largestShare) { _, kept in kept.bytes }
    }

    /// The decode of the photo whose content digest is `digest` at 1/`shrink`, if kept.
    public func decode(digest: String, shrink: Int) -> Decode? {
        guard case .decode(let decode) = take(Self.key(digest, shrink)) else { return nil }
        return decode
    }

    /// Whether the decode of the photo `digest` at 1/`shrink` is kept (without counting a use).
    public func contains(digest: String, shrink: Int) -> Bool {
        memory.contains(Self.key(digest, shrink))
    }

    /// Keeps `decode` for the photo `digest` at 1/`shrink` (unless it is larger than
    /// 1/`largestShare` of the bound), dropping the least recently used past the bound.
    public func keep(_ decode: Decode, digest: String, shrink: Int) {
        put(.decode(decode), key: Self.key(digest, shrink))
    }

    /// A level of the photo `digest`'s decode (a card's, `DecodeLevel`: "2/1" is its decode
    /// at 1/2 halved once), if kept.
    public func decode(digest: String, level: String) -> Decode? {
        guard case .decode(let decode) = take("\(digest) level \(level)") else { return nil }
        return decode
    }

    /// Keeps a level of the photo `digest`'s decode, as `keep(_:digest:shrink:)` keeps a decode.
    public func keep(_ decode: Decode, digest: String, level: String) {
        put(.decode(decode), key: "\(digest) level \(level)")
    }

    /// Whether something of `bytes` would be kept (it is at most 1/`largestShare` of the bound).
    public func wouldKeep(bytes: Int) -> Bool { memory.wouldKeep(cost: bytes) }

    /// Drops the least recently used until a decode of `bytes` about to be made fits beside
    /// what is kept, so that the bound holds the decode being made as well (a server's peak
    /// is otherwise the bound plus every decode in flight). Nothing is dropped for a decode
    /// too large to keep.
    public func makeRoom(for bytes: Int) { memory.makeRoom(for: bytes) }

    /// The encoded photo kept under its content digest, if any (the service's previews read
    /// it at every gesture: kept, it is not read from the store and verified again).
    public func photo(digest: String) -> ImageData? {
        guard case .photo(let photo) = take("photo " + digest) else { return nil }
        return photo
    }

    /// Keeps a photo's encoded bytes under their content digest (verified by the caller), as
    /// `keep` keeps a decode.
    public func keepPhoto(_ photo: ImageData, digest: String) {
        put(.photo(photo), key: "photo " + digest)
    }

    /// The libvips image kept under `name`, if any.
    public func image(named name: String) -> VImage? {
        guard case .image(let image) = take("image " + name) else { return nil }
        return image
    }

    /// Keeps `image` (8-bit, in memory: `VImage.inMemory`) under `name`, as `keep` keeps a decode.
    public func keepImage(_ image: VImage, named name: String) {
        put(.image(image), key: "image " + name)
    }

    private func take(_ key: String) -> Kept? { memory.value(for: key) }

    private func put(_ kept: Kept, key: String) { memory.insert(kept, for: key) }

    /// Decodes reused so far.
    public var hits: Int { memory.hits }

    /// Bytes of pixels held.
    public var bytes: Int { memory.usage.cost }

    private static func key(_ digest: String, _ shrink: Int) -> String { "\(digest) \(shrink)" }
}
