import CardKit
import RenderCache
import SystemPackage
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Everything that decides a card's output bytes besides the photo's content: the spec with
/// its defaults filled in, the frame's manifest and art, and the renderer's settings.
struct CardRecipe: Encodable {
    let kind = "card-v1"
    let placement: [String: Double]
    let placementKind: String
    let frame: FrameDesign?
    let frameArtDigest: String?
    let effect: String?
    let effectStrength: Double?
    let size: String
    let dpi: Int
    let bleed: Double
    let background: [Double]
    let message: CardMessage?
    let recipients: [Recipient]
    let printEncoding: EncodeOptions
    let sampleLongSide: Int
    let smallWidth: Int
    let qualityThreshold: Double
    let maxPixels: Int
    let maxFileBytes: Int
    let damage: String

    init(spec: CardSpec, renderer: CardRenderer, cache: DiskCache) throws {
        switch spec.placement {
        case .crop(let x, let y, let width, let height):
            placementKind = "crop"
            placement = ["x": Double(x), "y": Double(y), "width": Double(width), "height": Double(height)]
        case .transform(let scale, let rotation, let offsetX, let offsetY):
            placementKind = "transform"
            placement = ["scale": scale, "rotation": rotation, "offsetX": offsetX, "offsetY": offsetY]
        }
        let design = spec.frame.flatMap { renderer.catalogue?.frame($0) }
        frame = design
        frameArtDigest = try design.map { design in
            try cache.digest(
                ofFile: FilePath(renderer.catalogue!.directory).appending(design.theme).appending(design.art).string)
        }
        effect = spec.effect?.name.rawValue
        effectStrength = spec.effect?.strength
        size = spec.format.size.rawValue
        dpi = spec.format.dpi
        bleed = spec.format.bleed
        background = spec.background
        message = spec.message
        recipients = spec.recipients
        printEncoding = renderer.printEncoding
        sampleLongSide = renderer.sampleLongSide
        smallWidth = renderer.smallWidth
        qualityThreshold = renderer.qualityThreshold
        maxPixels = renderer.policy.maxPixels
        maxFileBytes = renderer.policy.maxFileBytes
        damage = renderer.policy.damage.rawValue
    }
}

/// What a cached card remembers besides its three files: the outcome's measurements.
struct CachedCard: Codable {
    var sizes: CardOutcome.Sizes
    var versoCount: Int
    var effectiveDPI: Double
    var quality: PrintQuality
    var frame: String?
    var effect: String
    var warning: String?
}
