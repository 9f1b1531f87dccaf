import CardKit
import FileUtilities
import ImageCore
import RenderCache
import SystemPackage
import Thumbnails

/// Makes the thumbnails of a batch into an output directory that mirrors the input tree,
/// on the same walker, ordering, workers, interrupt handling and output rules as the cards.
public struct ThumbBatch: Sendable {
    /// The thumbnailer, with the cache if any.
    public let thumbnailer: CachedThumbnailer
    /// What each thumbnail is asked for: the box, `enlarge`, a placeholder.
    public let request: ThumbnailRequest
    /// The encoding.
    public let options: EncodeOptions
    /// Whether each outcome carries the SHA-256 of the file written (for a run's manifest).
    public let recordsDigests: Bool
    private let directories: OutputDirectories

    /// - Parameters:
    ///   - recordsDigests: put the SHA-256 of the file written in each outcome.
    ///   - log: receives notes about the output tree (left-overs of killed writers removed).
    public init(
        thumbnailer: CachedThumbnailer, width: Int, enlarge: Bool, options: EncodeOptions,
        recordsDigests: Bool = false, log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.init(
            thumbnailer: thumbnailer, request: ThumbnailRequest(width: width, enlarge: enlarge), options: options,
            recordsDigests: recordsDigests, log: log)
    }

    /// A batch of the thumbnails `request` asks for (a box, a placeholder).
    public init(
        thumbnailer: CachedThumbnailer, request: ThumbnailRequest, options: EncodeOptions,
        recordsDigests: Bool = false, log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.recordsDigests = recordsDigests
        self.thumbnailer = thumbnailer
        self.request = request
        self.options = options
        directories = OutputDirectories(log: log)
    }

    /// The jobs for `inputs` writing under `directory` (largest inputs first); arguments that
    /// cannot be read are problems, inputs that would share an output are clashes.
    public static func plan(_ inputs: [String], into directory: String, format: OutputFormat) -> BatchPlan<
        OutputPlan.Job
    > {
        plan(inputs, into: directory, fileExtension: format.fileExtension)
    }

    /// As `plan(_:into:format:)`, the outputs named with `fileExtension` (`json` for ThumbHashes).
    public static func plan(_ inputs: [String], into directory: String, fileExtension: String) -> BatchPlan<
        OutputPlan.Job
    > {
        let walk = InputWalker.walk(inputs)
        let plan = OutputPlan(items: walk.items, directory: directory, fileExtension: fileExtension)
        return BatchPlan(jobs: plan.jobs, problems: walk.problems, skipped: [], clashes: plan.conflicts)
    }

    /// Makes every thumbnail of `plan` on `workers` workers.
    /// - Parameters:
    ///   - shouldStop: checked before each input is started (Ctrl-C).
    ///   - completed: called once per finished input, one call at a time.
    public func run(
        _ plan: BatchPlan<OutputPlan.Job>, workers: Int, shouldStop: @escaping @Sendable () -> Bool = { false },
        completed: @escaping @Sendable (ThumbOutcome) -> Void = { _ in }
    ) -> BatchRun<ThumbOutcome> {
        BatchRunner(jobs: workers).collect(plan.jobs, shouldStop: shouldStop, work: make, completed: completed)
    }

    /// Makes one thumbnail and writes it atomically. Never throws: a failure is in the outcome.
    public func make(_ job: OutputPlan.Job) -> ThumbOutcome {
        let started = ContinuousClock.now
        var outcome = ThumbOutcome(input: job.input.path)
        outcome.item = job.input.relativePath
        do {
            let made = try thumbnailer.thumbnail(file: job.input.path, request: request, options: options)
            try directories.prepare(FilePath(job.output).removingLastComponent().string)
            try AtomicFile.write(made.thumbnail.data, to: job.output)
            outcome.output = job.output
            outcome.width = made.thumbnail.width
            outcome.height = made.thumbnail.height
            outcome.warning = made.thumbnail.warning
            outcome.cached = thumbnailer.cache == nil ? nil : made.cached
            outcome.key = made.key?.hex
            if recordsDigests { outcome.digest = ContentDigest.of(made.thumbnail.data) }
        } catch {
            outcome.error = ErrorText.describe(error, file: job.input.path)
            if (error as? AtomicFile.WriteError)?.isTemporary == true { outcome.temporary = true }
        }
        outcome.seconds = (ContinuousClock.now - started).seconds
        return outcome
    }
}
