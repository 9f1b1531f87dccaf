import CardKit
import FileUtilities
import ImageCore
import RenderCache
import SystemPackage
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Renders the cards of a batch into an output directory, one card at a time per worker.
public struct CardBatch: Sendable {
    /// The renderer (frames, limits, encodings).
    public let renderer: CardRenderer
    /// The spec for photos without a sidecar (the command line's `--frame`, `--effect`, `--size`).
    public let defaults: CardSpec
    /// Where the outputs go; the input tree is mirrored under it.
    public let outputDirectory: String
    /// The cache, if any: a card whose photo bytes, spec and settings were rendered before
    /// is copied from it instead of rendered again.
    public let cache: ContentStore?
    /// Whether each outcome lists the SHA-256 of the files written (for a run's manifest).
    public let recordsDigests: Bool
    /// Whether a spec's `photo` may name a file outside the input root the spec was found
    /// under (`--allow-photos-outside-inputs`); by default it is refused.
    public let allowsPhotosOutsideInputs: Bool
    private let directories: OutputDirectories
    /// Largest spec file read, in bytes.
    public static let maxSpecBytes = 1 << 20

    /// - Parameters:
    ///   - recordsDigests: list the SHA-256 of every file written in its outcome.
    ///   - allowsPhotosOutsideInputs: let specs name photos outside their input root.
    ///   - log: receives notes about the output tree (left-overs of killed writers removed).
    public init(
        renderer: CardRenderer, defaults: CardSpec, outputDirectory: String, cache: ContentStore? = nil,
        recordsDigests: Bool = false, allowsPhotosOutsideInputs: Bool = false,
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.allowsPhotosOutsideInputs = allowsPhotosOutsideInputs
        self.renderer = renderer
        self.defaults = defaults
        self.outputDirectory = outputDirectory
        self.cache = cache
        self.recordsDigests = recordsDigests
        // Frame art rasterised once per cache (a node, or every node of a shared one).
        if let cache { renderer.catalogue?.keepArt(in: CachedFrameArt(cache: cache)) }
        directories = OutputDirectories(log: log)
    }

    /// The jobs for `inputs` (photos, specs, directories), largest photos first, with the
    /// arguments that could not be read and the files that are neither.
    public static func plan(_ inputs: [String]) -> BatchPlan<CardJob> {
        let walk = InputWalker.walk(inputs)
        let cards = CardJob.plan(walk)
        return BatchPlan(
            jobs: FileSizes.largestFirst(cards.jobs) { $0.photo }, problems: walk.problems, skipped: cards.skipped,
            clashes: cards.clashes)
    }

    /// Renders every job of `plan` on `workers` workers and returns the report.
    /// - Parameters:
    ///   - shouldStop: checked before each card is started (Ctrl-C).
    ///   - completed: called once per finished card, one call at a time.
    public func run(
        _ plan: BatchPlan<CardJob>, workers: Int, shouldStop: @escaping @Sendable () -> Bool = { false },
        completed: @escaping @Sendable (CardOutcome) -> Void = { _ in }
    ) -> BatchReport<CardOutcome> {
        let run = BatchRunner(jobs: workers).collect(
            plan.jobs, shouldStop: shouldStop, work: render, completed: completed)
        return BatchReport(
            interrupted: run.interrupted, total: plan.jobs.count + plan.problems.count, missing: plan.problems.count,
            outcomes: run.outcomes, seconds: run.seconds)
    }

    /// Renders one job and writes every file of the card (front, then each back: print
    /// file, sample, small image), each atomically. Never throws: a failure is reported in
    /// the outcome.
    public func render(_ job: CardJob) -> CardOutcome {
        let started = ContinuousClock.now
        var outcome = CardOutcome(input: job.name, spec: job.spec)
        outcome.item = job.relativePath
        do {
            let spec = try job.spec.map(readSpec) ?? defaults
            let photoPath = try photo(for: job, spec: spec)
            outcome.input = photoPath
            let rendering = CachedRendering(cache: cache, maxBytes: renderer.settings.policy.maxFileBytes)
            let maker = CardMaker(renderer: renderer, cache: cache)
            let result = try rendering.run(
                path: photoPath,
                open: allowsPhotosOutsideInputs
                    ? nil
                    : { path in
                        try spec.photo == nil ? openWalked(job, photo: path) : openConfined(job, spec: spec)
                    },
                key: { digest, cache in try maker.key(digest: digest, spec: spec, cache: cache) },
                fromEntry: FinishedCard.init(entry:),
                render: { data, _ in try maker.render(photo: data, spec: spec, specFile: job.spec ?? "defaults") },
                toEntry: { try $0.entry() })
            let card = result.output
            var names: [CardOutcome.Outputs] = []
            var digests: [String: String] = [:]
            for (index, side) in card.sides.enumerated() {
                let files = outputNames(stem: job.outputStem, side: index)
                for (data, name) in [(side.print, files.print), (side.sample, files.sample), (side.small, files.small)]
                {
                    // A press card's first back has no print of its own: it is page 2 of the front's PDF.
                    if data.isEmpty, name == files.print { continue }
                    try write(data, to: name)
                    if recordsDigests { digests[name] = ContentDigest.of(data) }
                }
                names.append(files)
            }
            outcome.digests = recordsDigests ? digests : nil
            outcome.key = result.key?.hex
            outcome.outputs = names[0]
            outcome.versos = names.count > 1 ? Array(names.dropFirst()) : nil
            outcome.sizes = card.record.sideSizes[0]
            outcome.effectiveDPI = card.record.effectiveDPI
            outcome.quality = card.record.quality
            outcome.frame = card.record.frame
            outcome.effect = card.record.effect
            outcome.warning = card.record.warning
            outcome.path = card.record.path
            outcome.placement = card.record.placement
            outcome.cached = cache == nil ? nil : result.cached
            let printed = renderer.settings.printFile.press?.cardFormat ?? spec.format
            outcome.mailClass = spec.mailClass(format: printed)
            let warnings = spec.postalWarnings(postedFrom: renderer.settings.postedFrom, format: printed)
            outcome.postalWarnings = warnings.isEmpty ? nil : warnings
        } catch {
            outcome.error = ErrorText.describe(error, file: job.name)
            if (error as? AtomicFile.WriteError)?.isTemporary == true { outcome.temporary = true }
            if error is CardRenderFailure { outcome.defect = true }
        }
        outcome.seconds = (ContinuousClock.now - started).seconds
        return outcome
    }

    /// The files of side `side` (0: the front, n: the back for recipient n), relative to
    /// the output directory. With a press, each print file is a whole postcard (PDF): the
    /// front's holds the first back too, so the first back's print is the front's file.
    func outputNames(stem: String, side: Int) -> CardOutcome.Outputs {
        let base = side == 0 ? stem : "\(stem).verso-\(side)"
        let printBase = renderer.settings.printFile.press != nil && side == 1 ? stem : base
        return CardOutcome.Outputs(
            print: printBase + ".print." + renderer.settings.printFile.fileExtension,
            sample: base + ".sample.jpg", small: base + ".small.png")
    }

    private func write(_ data: Data, to relative: String) throws {
        let path = FilePath(outputDirectory).pushing(FilePath(relative))
        try directories.prepare(path.removingLastComponent().string)
        try AtomicFile.write(data, to: path.string)
    }

    private func readSpec(_ path: String) throws -> CardSpec {
        guard let size = FileSizes.size(of: path), let data = FileManager.default.contents(atPath: path) else {
            throw CardSpecError(file: path, field: "(document)", problem: "cannot be read.")
        }
        guard size <= Self.maxSpecBytes else {
            throw CardSpecError(
                file: path, field: "(document)",
                problem: "is \(size) bytes; a spec may have \(Self.maxSpecBytes) at most.")
        }
        return try CardSpec.parse(data, file: path)
    }

    /// Opens the photo a spec names from beneath the job's input root, in one step (symbolic
    /// links followed only while they stay inside).
    /// - Throws: `CardSpecError` (`photo`) when it leads outside the root; `ImageInputError`
    ///   when it cannot be opened.
    private func openConfined(_ job: CardJob, spec: CardSpec) throws -> FileDescriptor {
        let named = spec.photo ?? ""
        let specFile = job.spec ?? "defaults"
        let outside = CardSpecError(
            file: specFile, field: "photo",
            problem: "\"\(named)\" leads outside the input folder \(job.root) (a spec's photo must lie inside the "
                + "folder the spec was found in, symbolic links included; --allow-photos-outside-inputs allows it).")
        guard !FilePath(named).isAbsolute, let specRelative = ConfinedDirectory.relative(specFile, to: job.root)
        else { throw outside }
        let relative = FilePath(specRelative).removingLastComponent().pushing(FilePath(named)).string
        return try open(relative, beneath: job.root, file: try photo(for: job, spec: spec), outside: outside)
    }

    /// Opens a photo the walk found (or a file argument) from beneath its input root: the one
    /// rule for links a spec's `photo` follows too, so `in/l.jpg -> /elsewhere/s.jpg` is
    /// refused, not printed as `l.print.jpg`.
    /// - Throws: `ImageInputError` naming the photo when it leads outside or cannot be opened.
    private func openWalked(_ job: CardJob, photo path: String) throws -> FileDescriptor {
        let outside = ImageInputError.unreadable(
            file: path,
            reason: "a symbolic link leading outside the input folder \(job.root) (photos are read from inside "
                + "the folders given, links included; --allow-photos-outside-inputs allows it)")
        guard let relative = ConfinedDirectory.relative(path, to: job.root) else { throw outside }
        return try open(relative, beneath: job.root, file: path, outside: outside)
    }

    /// Opens `relative` beneath `root` in one step (openat2, RESOLVE_BENEATH): nothing can be
    /// swapped in between a check and the read.
    private func open(_ relative: String, beneath root: String, file: String, outside: any Error) throws
        -> FileDescriptor
    {
        let directory: ConfinedDirectory
        do {
            directory = try ConfinedDirectory(root)
        } catch {
            throw ImageInputError.unreadable(file: root, reason: "the input folder cannot be resolved (\(error))")
        }
        do {
            return try directory.open(relative)
        } catch .outside {
            throw outside
        } catch .notRegularFile {
            throw ImageInputError.unreadable(file: file, reason: "not a regular file")
        } catch .system(let errno) {
            throw ImageInputError.unreadable(file: file, reason: "\(errno)")
        }
    }

    /// The one photo beside a sidecar spec given alone (`beach.card.json` -> `beach.jpg`),
    /// or nil when there is none or more than one.
    private static func sidecarPhoto(of specPath: String) -> String? {
        let stem = String(specPath.dropLast(CardJob.specSuffix.count))
        let candidates = InputWalker.imageExtensions.sorted().flatMap {
            [stem + "." + $0, stem + "." + $0.uppercased()]
        }
        .filter { FileManager.default.fileExists(atPath: $0) }
        return candidates.count == 1 ? candidates[0] : nil
    }

    private func photo(for job: CardJob, spec: CardSpec) throws -> String {
        if let named = spec.photo, let specPath = job.spec {
            let path = FilePath(named)
            return path.isAbsolute ? named : FilePath(specPath).removingLastComponent().pushing(path).string
        }
        if let photo = job.photo { return photo }
        if let specPath = job.spec, let sidecarPhoto = Self.sidecarPhoto(of: specPath) { return sidecarPhoto }
        throw CardSpecError.expected(
            "the photo's path (this spec has no photo beside it)", at: "photo", received: nil,
            in: job.spec ?? "defaults")
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
