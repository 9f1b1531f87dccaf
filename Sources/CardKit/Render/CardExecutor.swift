import FastPath
import ImageCore
import PhotoSources

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Runs a card plan's front: the one protocol both executors conform to
/// (`FastCardExecutor`, `GeneralCardExecutor`). The plans decide the geometry, the steps and
/// the outputs; an executor only runs them, and answers the same picture for every plan.
/// A card's front is two plans run: the print's, and its sample's (`CardPlan.init(sampleOf:art:)`),
/// each drawn from the photo at its own size. A preview is the sample plan run alone, by the
/// same code, so its bytes are the card's sample.
protocol CardExecutor {
    /// Which pixel path this is, as the report names it.
    var path: RenderPath { get }

    /// The front's three files: the print from `plan`, the sample and the small image from
    /// `sample`; and the print pixels when `keepPixels` (a press's PDF is made from them).
    /// - Throws: `ImageInputError` for the photo's own faults (refused, damaged),
    ///   `CardRenderFailure` naming the stage for anything after the decode.
    func front(_ plan: CardPlan, sample: CardPlan, photo: ImageData, keepPixels: Bool) throws -> ExecutedFront

    /// The sample file of `sample` (a sample plan) alone: `front`'s sample bytes. The photo's
    /// decodes are kept in `kept` under `digest` for the next preview of the same photo.
    /// - Throws: what `front` throws.
    func sample(_ sample: CardPlan, photo: ImageData, digest: String, kept: DecodedPhotos?) throws -> Data
}

/// What an executor made of a front.
struct ExecutedFront {
    /// The three files.
    var side: RenderedSide
    /// The print pixels, when asked for.
    var pixels: MemoryImage?
    /// The warning of a lenient decode.
    var warning: String?
}

extension Executor {
    /// The executor that runs plans chosen for this one.
    func runner(settings: CardSettings) -> any CardExecutor {
        switch self {
        case .fast(let source): FastCardExecutor(source: source, renderer: FastCardRenderer(settings: settings))
        case .fastHEIF(let source): FastCardExecutor(source: source, renderer: FastCardRenderer(settings: settings))
        case .general: GeneralCardExecutor(settings: settings)
        }
    }
}

extension RenderedSide {
    /// A front's side from its print file and its sample plan's files.
    init(print: Data, sample: (sample: Data, small: Data), plan: CardPlan) {
        self.init(
            print: print, sample: sample.sample, small: sample.small, printSize: plan.printSize,
            sampleSize: plan.sampleSize, smallSize: plan.smallSize)
    }
}
