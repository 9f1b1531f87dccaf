import ImageCore
import Synchronization
import SystemPackage
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The frame catalogue: manifests and SVG art under a directory (`frames/<theme>/<name>.json`).
///
/// Art is rendered by libvips once per print size and kept decoded in memory, shared by
/// every card that uses it (decoding a frame per card was a measured hot spot); with a
/// `FrameArtCache` attached, once per cache (a node, or a fleet sharing one) instead.
public final class FrameCatalogue: Sendable {
    /// Every frame, sorted by id.
    public let frames: [FrameDesign]
    /// The directory the catalogue was read from.
    public let directory: String
    private let byID: [String: FrameDesign]
    /// The art rendered at each card size, and the overlays made of it, by frame and size:
    /// each made once however many workers want it at once (two workers meeting a frame at
    /// once rasterised it twice, ~150 ms of CPU each), the least recently used forgotten past
    /// 512 MiB (18 frames at three print sizes are well under it).
    private let rendered = BoundedMemory<String, VImage>(capacity: 512 << 20) { _, image in
        image.width * image.height * image.bands
    }
    private let overlays = BoundedMemory<String, FrameOverlay>(capacity: 512 << 20) { _, overlay in
        overlay.colourPixels.count + overlay.alphaPixels.count
    }
    private let artCache = Mutex<(any FrameArtCache)?>(nil)
    private let rasterised = Atomic<Int>(0)

    /// Reads and checks every manifest under `directory`.
    /// - Throws: `FrameCatalogueError` naming the manifest and what is wrong with it.
    public init(directory: String) throws {
        self.directory = directory
        var found: [FrameDesign] = []
        let decoder = JSONDecoder()
        let themes = try FrameCatalogue.list(directory)
        for theme in themes where !theme.hasPrefix(".") {
            let themeDirectory = FilePath(directory).appending(theme).string
            guard let names = try? FrameCatalogue.list(themeDirectory) else { continue }
            for file in names where file.hasSuffix(".json") {
                let path = FilePath(themeDirectory).appending(file).string
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw FrameCatalogueError(manifest: path, problem: "cannot be read")
                }
                let design: FrameDesign
                do {
                    design = try decoder.decode(FrameDesign.self, from: data)
                } catch {
                    throw FrameCatalogueError(manifest: path, problem: "is not a valid frame manifest (\(error))")
                }
                let expectedID = theme + "/" + String(file.dropLast(".json".count))
                guard design.id == expectedID, design.theme == theme else {
                    throw FrameCatalogueError(
                        manifest: path, problem: "has id \(design.id) and theme \(design.theme); expected \(expectedID)"
                    )
                }
                let trim = CardFormat(size: design.size).trimPixels(design.orientation)
                let window = design.window
                guard window.x >= 0, window.y >= 0, window.width > 0, window.height > 0,
                    window.x + window.width <= trim.width, window.y + window.height <= trim.height
                else {
                    throw FrameCatalogueError(
                        manifest: path,
                        problem: "has a photo window \(window) outside the \(trim.width)x\(trim.height) card")
                }
                guard FileManager.default.fileExists(atPath: artPath(design, in: directory)) else {
                    throw FrameCatalogueError(manifest: path, problem: "names art \(design.art), which does not exist")
                }
                found.append(design)
            }
        }
        guard !found.isEmpty else {
            throw FrameCatalogueError(manifest: directory, problem: "holds no frame manifests")
        }
        frames = found.sorted { $0.id < $1.id }
        byID = Dictionary(uniqueKeysWithValues: found.map { ($0.id, $0) })
    }

    /// Keeps rendered overlays in `cache` from now on, and looks there before rasterising.
    public func keepArt(in cache: any FrameArtCache) {
        artCache.withLock { $0 = cache }
    }

    /// How many times this catalogue has rasterised art (what an attached cache saves).
    public var rasterisations: Int { rasterised.load(ordering: .relaxed) }

    /// The frame with this id, if the catalogue has it.
    public func frame(_ id: String) -> FrameDesign? { byID[id] }

    /// The themes, sorted.
    public var themes: [String] { Array(Set(frames.map(\.theme))).sorted() }

    /// The art of `frame` rendered at `width` x `height` (the trimmed card), RGBA, in memory.
    /// - Throws: `FrameCatalogueError` when the art does not render at the card's proportions.
    public func art(_ frame: FrameDesign, width: Int, height: Int) throws -> VImage {
        try rendered.value(for: "\(frame.id)@\(width)x\(height)") {
            try rasterise(frame, width: width, height: height)
        }
    }

    /// The art of `frame` rendered now at `width` x `height`.
    private func rasterise(_ frame: FrameDesign, width: Int, height: Int) throws -> VImage {
        let path = artPath(frame, in: directory)
        let svg = try ImageData(contentsOfFile: path, maxBytes: 8 << 20)
        let design = CardFormat(size: frame.size).trimPixels(frame.orientation)
        var image = try VImage.trustedSVG(svg, scale: Double(width) / Double(design.width))
        if image.height != height || image.width != width {
            guard abs(image.width - width) <= 1 else {
                throw FrameCatalogueError(
                    manifest: path, problem: "renders \(image.width) pixels wide; expected \(width)")
            }
            image = try image.resized(
                scale: Double(width) / Double(image.width), verticalScale: Double(height) / Double(image.height)
            ).inMemory()
        }
        guard image.bands == 4 else {
            throw FrameCatalogueError(manifest: path, problem: "renders without transparency")
        }
        rasterised.add(1, ordering: .relaxed)
        return image
    }

    /// The art of `frame` for a trimmed card of `width` x `height` plus `bleed` (edge pixels
    /// repeated), split into 8-bit colour and alpha for `VImage.blended(with:mask:)`; cached.
    public func overlay(_ frame: FrameDesign, width: Int, height: Int, bleed: Int) throws -> FrameOverlay {
        try overlays.value(for: "\(frame.id)@\(width)x\(height)+\(bleed)") {
            try makeOverlay(frame, width: width, height: height, bleed: bleed)
        }
    }

    /// The overlay made: loaded from the art cache, else rasterised (and stored there).
    private func makeOverlay(_ frame: FrameDesign, width: Int, height: Int, bleed: Int) throws
        -> FrameOverlay
    {
        let cache = artCache.withLock { $0 }
        var request: FrameArtRequest?
        if let cache, let svg = FileManager.default.contents(atPath: artPath(frame, in: directory)) {
            let asked = FrameArtRequest(
                art: svg, recipe: .init(frame: frame.id, width: width, height: height, bleed: bleed))
            if let stored = cache.load(asked), stored.width == width + 2 * bleed, stored.height == height + 2 * bleed {
                return stored
            }
            request = asked
        }
        let art = try self.art(frame, width: width, height: height).extendedByCopy(margin: bleed)
        let overlay = try FrameOverlay(colour: art.bands(0, count: 3).inMemory(), alpha: art.bands(3).inMemory())
        if let cache, let request { cache.save(overlay, for: request) }
        return overlay
    }

    /// Checks that the art renders at the card size and is fully transparent in the window.
    /// - Throws: `FrameCatalogueError` naming the frame and the problem.
    public func validateArt(_ frame: FrameDesign) throws {
        let trim = CardFormat(size: frame.size).trimPixels(frame.orientation)
        let art = try art(frame, width: trim.width, height: trim.height)
        let window = frame.window
        let alpha = try art.extractArea(left: window.x, top: window.y, width: window.width, height: window.height)
            .bands(3)
        let coverage = try alpha.average()
        guard coverage == 0 else {
            throw FrameCatalogueError(
                manifest: artPath(frame, in: directory),
                problem: "is not transparent in its photo window (mean alpha \(coverage))")
        }
        let border = try art.bands(3).average()
        guard border > 0 else {
            throw FrameCatalogueError(manifest: artPath(frame, in: directory), problem: "draws nothing")
        }
    }

    private static func list(_ directory: String) throws -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        } catch {
            throw FrameCatalogueError(manifest: directory, problem: "cannot be listed")
        }
    }
}

/// The art file of `frame` under the catalogue `directory`.
extension FrameCatalogue {
    /// The path of a frame's SVG art.
    public func artFile(of frame: FrameDesign) -> String {
        CardKit.artPath(frame, in: directory)
    }
}

func artPath(_ frame: FrameDesign, in directory: String) -> String {
    FilePath(directory).appending(frame.theme).appending(frame.art).string
}
