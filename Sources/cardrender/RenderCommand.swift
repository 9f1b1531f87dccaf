import ArgumentParser
import CardKit
import CardPipeline
import ImageCore
import PhotoSources
import PressKit
import RenderCache
import Synchronization
import SystemPackage
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `cardrender render`: print-ready postcards from a directory of photos and card specs.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render postcards (print file, sample, small image) from photos and card specs.",
        discussion: """
            Inputs are photos, card specs (NAME.card.json) or directories of both, walked \
            recursively. A photo takes its sidecar spec (photo.jpg + photo.card.json) or, \
            without one, the defaults given here. Per card: NAME.print.jpg (or .tif), \
            NAME.sample.jpg and NAME.small.png, the input tree mirrored under --out; plus \
            report.json and index.html, a gallery of the batch (a shard writes neither: \
            `cardrender runs merge` makes them from the shards' manifests). Exit status: 0 all \
            rendered (with --run: every card rendered, cached or rejected), 1 some failed, 64 \
            usage error, 70 a card failed through a defect of cardrender's (the stage is named; \
            the other cards render), 75 the machine or the shared cache failed (run the shard \
            again), 130 interrupted (Ctrl-C: the cards in progress are finished, nothing half-written is \
            left, the report covers what finished).
            """
    )

    @Argument(help: "Photos, card specs or directories.")
    var inputs: [String]

    @Option(help: ArgumentHelp("Directory to write the cards into (created if missing).", valueName: "dir"))
    var out: String

    @Option(help: "Frame for photos without a spec, by id (see `cardrender frames`).")
    var frame: String?

    @Option(help: "Effect for photos without a spec.")
    var effect: ColourEffect.Name?

    @Option(help: "Paper size for photos without a spec.")
    var size: PaperSize = .a6

    @Option(
        help: ArgumentHelp(
            "Placement for photos without a spec: cover (centred) or auto (faces kept whole, else the most detail; the report says why).",
            valueName: "cover|auto"))
    var placement: PlacementChoice = .cover

    @Option(name: .customLong("jobs"), help: "Cards rendered in parallel (default: the number of cores).")
    var jobsOption: Int?

    /// `--jobs`, or the number of cores.
    var jobs: Int { jobsOption ?? ProcessInfo.processInfo.activeProcessorCount }

    @Option(help: ArgumentHelp("Where to write the JSON report (default: OUT/report.json).", valueName: "file"))
    var report: String?

    @Option(help: "Effective resolution (photo pixels per printed inch) below which print quality is bad.")
    var minDpi: Double = 150

    @Option(help: "Print file format: jpeg (4:4:4) or tiff (deflate, lossless).")
    var printFormat: PrintFormat = .jpeg

    @Option(help: "JPEG quality of the print file, 1-100.")
    var quality: Int = 92

    @Option(
        help: ArgumentHelp(
            "The print file a press takes: rgb-jpeg (an RGB JPEG per side, at the spec's size; print-on-demand APIs), eu-a6-fogra39 (EU shops: PDF/X-1a, FOGRA39 CMYK, A6 + 3 mm bleed), us-4x6-gracol (Lob: PDF/X-1a, GRACoL 2006, 4x6 in + 1/8 in bleed) or gelato-a6 (Gelato: PDF/X-4, GRACoL 2006, A6 + 4 mm bleed). A PDF press prints every card at its size, dpi and bleed, one PDF per postcard (photo side, then the back); README \"For the print shop\" gives the sources.",
            valueName: "name"))
    var press: PressName = .rgbJPEG

    @Option(help: ArgumentHelp("The frame catalogue directory (default: the bundled frames/).", valueName: "dir"))
    var frames: String?

    @Option(
        help:
            "Pixel path: auto (libjpeg-turbo and SIMD kernels for the JPEGs that allow it, libvips for the rest) or general (libvips for every card)."
    )
    var engine: RenderEngine = .auto

    @Option(
        help: ArgumentHelp(
            "The country the cards are posted in (ISO 3166-1 code, e.g. FR, BE, GB): the backs' country lines are in its language, and left out for its own addresses.",
            valueName: "code"))
    var postedFrom: String = "FR"

    @Option(help: "Most recipients on one card (each is a back rendered at print size).")
    var maxRecipients: Int = CardLimits.default.maxRecipients

    @Option(help: ArgumentHelp("Longest message, in UTF-8 bytes.", valueName: "bytes"))
    var maxMessageBytes: Int = CardLimits.default.maxMessageBytes

    @Flag(
        help:
            "Let a photo be any file this process can read; by default a spec's photo, and a photo found in a folder, must lie inside that input folder (symbolic links included)."
    )
    var allowPhotosOutsideInputs = false

    @OptionGroup var running: RunOptions

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @OptionGroup var decode: DecodeOptions

    @OptionGroup var caching: CacheOptions

    enum PrintFormat: String, CaseIterable, ExpressibleByArgument {
        case jpeg, tiff
    }

    /// `--placement`: where a photo without a spec starts in its window.
    enum PlacementChoice: String, CaseIterable, ExpressibleByArgument {
        case cover, auto
    }

    /// The press profiles by name (`PressProfile.presets`).
    enum PressName: String, CaseIterable, ExpressibleByArgument {
        case rgbJPEG = "rgb-jpeg"
        case euA6FOGRA39 = "eu-a6-fogra39"
        case us4x6GRACoL = "us-4x6-gracol"
        case gelatoA6 = "gelato-a6"
    }

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1; received \(jobs).") }
        guard minDpi > 0 else { throw ValidationError("--min-dpi must be above 0; received \(minDpi).") }
        guard (1...100).contains(quality) else {
            throw ValidationError("--quality must be from 1 to 100; received \(quality).")
        }
        guard maxRecipients >= 1 else {
            throw ValidationError("--max-recipients must be at least 1; received \(maxRecipients).")
        }
        if press != .rgbJPEG, printFormat != .jpeg {
            throw ValidationError(
                "--print-format \(printFormat.rawValue) cannot be used with --press \(press.rawValue), "
                    + "whose print file is a PDF.")
        }
        guard maxMessageBytes >= 1 else {
            throw ValidationError("--max-message-bytes must be at least 1; received \(maxMessageBytes).")
        }
        try PostedFrom.validate(postedFrom)
    }

    func run() throws {
        let catalogue = try loadCatalogue()
        let printFile: PrintFile =
            if let press = try Resources.pressProfile(press.rawValue) {
                .pdf(press, quality: quality)
            } else if printFormat == .jpeg {
                .image(EncodeOptions(format: .jpeg, quality: quality, chroma: .full, keepResolution: true))
            } else {
                .image(EncodeOptions(format: .tiff, keepResolution: true))
            }
        let renderer = CardRenderer(
            catalogue: catalogue,
            settings: CardSettings(
                policy: decode.policy, qualityThreshold: minDpi, printFile: printFile, engine: engine,
                postedFrom: PostedFrom.code(postedFrom)),
            limits: CardLimits(maxRecipients: maxRecipients, maxMessageBytes: maxMessageBytes))
        let defaults = CardSpec(
            placement: placement == .auto ? .automatic : .cover, frame: frame, effect: effect.map { ColourEffect($0) },
            format: CardFormat(size: size))
        let cache = caching.open()
        let batch = CardBatch(
            renderer: renderer, defaults: defaults, outputDirectory: out, cache: cache,
            recordsDigests: running.run != nil, allowsPhotosOutsideInputs: allowPhotosOutsideInputs,
            log: { Console.error($0) })

        var plan = CardBatch.plan(inputs)
        try RunOptions.refuseClashes(plan.clashes)
        if let shard = running.shard { plan = plan.sharded(shard) { $0.relativePath } }
        for problem in plan.problems { Console.error("cardrender: \(problem)") }
        if plan.jobs.isEmpty && plan.problems.isEmpty && running.shard == nil {
            // An empty inbox is not an error (a scheduled run may find nothing), but say so.
            Console.error(
                "cardrender: nothing to render: no photos or card specs were found in \(inputs.joined(separator: ", "))."
            )
        }
        if !quiet {
            for file in plan.skipped {
                Console.error("cardrender: note: skipped \(file) (not an image or a card spec)")
            }
        }
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        } catch {
            throw ValidationError("--out \(out) cannot be created: \(error).")
        }

        let interrupt = Interrupt {
            Console.error("\ncardrender: interrupted; finishing the cards in progress (no partial files are left).")
        }
        Vips.concurrency = VipsThreads.perImage(jobs: jobs, items: plan.jobs.count)
        let progress = Progress(total: plan.jobs.count, quiet: quiet)
        let report = batch.run(plan, workers: jobs, shouldStop: { interrupt.requested }) { outcome in
            let verdict = outcome.quality.map { "\($0.rawValue), \(Int(outcome.effectiveDPI ?? 0)) dpi" } ?? ""
            progress.finished("\(outcome.input) \(verdict)", error: outcome.error)
        }
        progress.end()
        if let cache {
            cache.collectGarbage()
            cache.flushStatistics()
        }
        if !quiet { Console.error("cardrender: \(report.summaryLine)") }
        try running.writeManifest(
            kind: .render, producer: report.producer, entries: RunManifest.entries(cards: report.outcomes),
            items: plan.jobs.count, seconds: report.summary.seconds, out: out, quiet: quiet)
        // A shard's report and gallery would overwrite the other shards': `runs merge` makes them.
        if let reportPath = self.report ?? (running.shard == nil ? FilePath(out).appending("report.json").string : nil)
        {
            try report.write(to: reportPath)
            if !quiet { Console.error("cardrender: report: \(reportPath)") }
        }
        if running.shard == nil {
            try Gallery.write(report, to: out)
            if !quiet { Console.error("cardrender: gallery: \(FilePath(out).appending("index.html").string)") }
        }
        if report.interrupted { throw ExitCode(130) }
        try RunOptions.checkTemporary(failed: report.outcomes.filter { $0.temporary == true }.count)
        try CacheOptions.checkShared(cache)
        let rejectedCount = running.run == nil ? report.summary.failed : 0
        // A defect of cardrender's outranks a bad input: an operator must see it.
        if report.summary.defects > 0 { throw ExitCode(70) }
        if rejectedCount > 0 || !plan.problems.isEmpty { throw ExitCode(1) }
    }

    private func loadCatalogue() throws -> FrameCatalogue? {
        let directory = Resources.framesDirectory(frames)
        do {
            let catalogue = try FrameCatalogue(directory: directory)
            if let frame, catalogue.frame(frame) == nil {
                throw ValidationError(
                    "--frame must be a frame id such as \(catalogue.frames[0].id) (see `cardrender frames`); received \(frame)."
                )
            }
            return catalogue
        } catch let error as FrameCatalogueError {
            if frame != nil || frames != nil {
                throw ValidationError("The frame catalogue cannot be used: \(error)")
            }
            Console.error("cardrender: warning: no frame catalogue (\(error)); cards with frames will fail.")
            return nil
        }
    }

}

extension ColourEffect.Name: ExpressibleByArgument {}
extension PaperSize: ExpressibleByArgument {}
extension RenderEngine: ExpressibleByArgument {}
