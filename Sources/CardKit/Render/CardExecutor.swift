import FastPath
import ImageCore
import VipsKit

/// Runs a card plan's front: the one protocol both executors conform to
/// (`FastCardExecutor`, `GeneralCardExecutor`). The plan decides the geometry, the steps and
/// the outputs; an executor only runs them, and answers the same picture for every plan.
protocol CardExecutor {
    /// Which pixel path this is, as the report names it.
    var path: RenderPath { get }

    /// The front's three files at the plan's outputs, and its print pixels when `keepPixels`
    /// (a press's PDF is made from them).
    /// - Throws: `ImageInputError` for the photo's own faults (refused, damaged),
    ///   `CardRenderFailure` naming the stage for anything after the decode.
    func front(_ plan: CardPlan, photo: ImageData, keepPixels: Bool) throws -> ExecutedFront
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
    func runner(settings: CardRenderer.Settings) -> any CardExecutor {
        switch self {
        case .fast(let source): FastCardExecutor(source: source, renderer: FastCardRenderer(settings: settings))
        case .fastHEIF(let source): FastCardExecutor(source: source, renderer: FastCardRenderer(settings: settings))
        case .general: GeneralCardExecutor(settings: settings)
        }
    }
}
