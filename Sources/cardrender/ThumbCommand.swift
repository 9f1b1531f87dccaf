import ArgumentParser
import CardPipeline
import ImageCore
import PhotoSources
import RenderCache
import Synchronization
import SystemPackage
import Thumbnails
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// `cardrender thumb`: GD-style thumbnails of files and directories.
struct ThumbCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumb",
        abstract: "Make thumbnails: a width in pixels (the height by the aspect ratio), or a box.",
        discussion: """
            Inputs are files or directories (walked recursively; the output tree mirrors \
            the input). Formats are recognised by content: JPEG, PNG, WebP, HEIC/AVIF, TIFF, \
            GIF. A box (--width and --height) takes --fit cover|contain|inside|fill, --gravity \
            or --focus, --background and --dpr, as the server's URLs do (docs/thumbnails.md); \
            an animated GIF or WebP stays animated as WebP or GIF. Exit status: 0 all written (with --run: every input written, \
            cached or rejected), 1 some failed (one line each on stderr; the others are still \
            written), 64 usage error, 75 the machine or the shared cache failed (run the shard \
            again), 130 interrupted.
            """
    )

    @Argument(help: "Image files or directories.")
    var inputs: [String]

    @Option(help: "Width of the thumbnail (of the box) in pixels.")
    var width: Int?

    @Option(help: "Height of the box in pixels (without --width: the width by the aspect ratio).")
    var height: Int?

    @Option(help: "How the photo fits a box of --width and --height: inside (default), cover, contain or fill.")
    var fit: String?

    @Option(
        help:
            "Which part a cover crop keeps: centre, north, south, east, west, north-east, north-west, south-east, south-west or attention."
    )
    var gravity: String?

    @Option(help: ArgumentHelp("Centre a cover crop on this point, in fractions of the photo.", valueName: "x,y"))
    var focus: String?

    @Option(
        help: ArgumentHelp("Padding colour of contain (default: transparent, or white for JPEG).", valueName: "RRGGBB"))
    var background: String?

    @Option(help: "Device pixels per CSS pixel, 1-4: multiplies the box (never past the photo without --enlarge).")
    var dpr: String?

    @Option(help: "Write a placeholder instead: thumbhash (JSON) or blur (a blurred JPEG of at most 32 px).")
    var placeholder: String?

    @Option(help: "The most frames an animated thumbnail keeps.")
    var maxFrames = 200

    @Option(help: "Output format.")
    var format: OutputFormat = .png

    @Option(help: "Quality 1-100 (JPEG default 85, WebP 80, AVIF 60).")
    var quality: Int?

    @Option(help: ArgumentHelp("Directory to write into (created if missing).", valueName: "dir"))
    var out: String?

    @Option(
        name: .short, help: ArgumentHelp("Output file for a single input, or - for standard output.", valueName: "file")
    )
    var output: String?

    @Option(name: .customLong("jobs"), help: "Images processed in parallel (default: the number of cores).")
    var jobsOption: Int?

    /// `--jobs`, or the number of cores.
    var jobs: Int { jobsOption ?? ProcessInfo.processInfo.activeProcessorCount }

    @Option(help: "Largest width accepted.")
    var maxWidth: Int = 8192

    @Flag(help: "Allow a width above the source width (default: the source size is kept).")
    var enlarge = false

    @Option(
        help:
            "Pixel path: auto (libjpeg-turbo and SIMD kernels for the JPEGs that allow it, libvips for the rest) or general (libvips for every image)."
    )
    var engine: RenderEngine = .auto

    @Option(help: ArgumentHelp("Write a JSON report of the batch here (with --out).", valueName: "file"))
    var report: String?

    @OptionGroup var running: RunOptions

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @OptionGroup var decode: DecodeOptions

    @OptionGroup var caching: CacheOptions

    func validate() throws {
        if (running.shard != nil || running.run != nil) && out == nil {
            throw ValidationError("--shard and --run are for batches; use them with --out DIR, not -o.")
        }
        if let width, !(1...maxWidth).contains(width) {
            throw ValidationError("--width must be from 1 to \(maxWidth); received \(width).")
        }
        guard width != nil || height != nil else { throw ValidationError("Give --width, --height or both.") }
        guard maxFrames >= 1 else { throw ValidationError("--max-frames must be at least 1; received \(maxFrames).") }
        if placeholder != nil && (quality != nil || format != .png) {
            throw ValidationError("--placeholder has its own format (JSON or JPEG); leave out --format and --quality.")
        }
        _ = try parameters()
        if let quality, !(1...100).contains(quality) {
            throw ValidationError("--quality must be from 1 to 100; received \(quality).")
        }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1; received \(jobs).") }
        switch (out, output) {
        case (nil, nil):
            throw ValidationError("Say where thumbnails go: --out DIR, or -o FILE (or -o -) for one input.")
        case (.some, .some):
            throw ValidationError("Use either --out DIR or -o FILE, not both.")
        case (nil, .some) where report != nil:
            throw ValidationError("--report describes a batch; use it with --out DIR, not -o.")
        case (nil, .some):
            var isDirectory = false
            let single =
                inputs.count == 1
                && !(FileManager.default.fileExists(atPath: inputs[0], isDirectory: &isDirectory) && isDirectory)
            guard single else {
                throw ValidationError(
                    "-o takes one input file; received \(inputs.count) inputs or a directory. Use --out DIR.")
            }
        case (.some, nil):
            break
        }
    }

    /// The box options read by the server's own parser (`ThumbParameters`): one parameter
    /// set, one set of checks and messages.
    private func parameters() throws -> ThumbParameters {
        var pairs: [(name: String, value: String)] = []
        let named: [(String, String?)] = [
            ("width", width.map(String.init)), ("height", height.map(String.init)), ("fit", fit),
            ("gravity", gravity), ("focus", focus), ("background", background), ("dpr", dpr),
            ("placeholder", placeholder),
        ]
        for case (let name, let value?) in named { pairs.append((name, value)) }
        do {
            return try ThumbParameters.parse(pairs, rules: ThumbParameters.Rules(maxWidth: maxWidth))
        } catch {
            throw ValidationError("--\(error.message)")
        }
    }

    func run() throws {
        let thumbnailer = CachedThumbnailer(
            thumbnailer: Thumbnailer(maxWidth: maxWidth, policy: decode.policy, engine: engine), cache: caching.open())
        let parameters = try parameters()
        let request = ThumbnailRequest(
            box: parameters.box.canonical, enlarge: enlarge, placeholder: parameters.placeholder, maxFrames: maxFrames)
        let options =
            parameters.placeholder == nil
            ? EncodeOptions(format: format, quality: quality) : EncodeOptions(format: .jpeg)
        let fileExtension =
            switch parameters.placeholder {
            case .thumbhash?: "json"
            case .blur?: "jpg"
            case nil: format.fileExtension
            }
        defer {
            if let cache = thumbnailer.cache {
                cache.collectGarbage()
                cache.flushStatistics()
            }
        }
        if let output {
            try single(thumbnailer, request: request, options: options, output: output)
            return
        }
        let out = self.out!
        let batch = ThumbBatch(
            thumbnailer: thumbnailer, request: request, options: options,
            recordsDigests: running.run != nil, log: { Console.error($0) })
        var plan = ThumbBatch.plan(inputs, into: out, fileExtension: fileExtension)
        try RunOptions.refuseClashes(plan.clashes)
        if let shard = running.shard { plan = plan.sharded(shard) { $0.input.relativePath } }
        for problem in plan.problems { Console.error("cardrender: \(problem)") }
        let interrupt = Interrupt {
            Console.error(
                "\ncardrender: interrupted; finishing the thumbnails in progress (no partial files are left).")
        }
        Vips.concurrency = VipsThreads.perImage(jobs: jobs, items: plan.jobs.count)
        let quiet = self.quiet
        let run = batch.run(plan, workers: jobs, shouldStop: { interrupt.requested }) { outcome in
            if let error = outcome.error {
                Console.error("cardrender: \(error)")
                return
            }
            if let warning = outcome.warning { Console.error("cardrender: warning: \(warning)") }
            if !quiet, let output = outcome.output, let width = outcome.width, let height = outcome.height {
                Console.out("\(output) \(width)x\(height)")
            }
        }
        let summary = BatchReport(
            interrupted: run.interrupted, total: plan.jobs.count + plan.problems.count, missing: plan.problems.count,
            outcomes: run.outcomes, seconds: run.seconds)
        if let report { try summary.write(to: report) }
        try running.writeManifest(
            kind: .thumb, producer: summary.producer,
            entries: RunManifest.entries(thumbnails: run.outcomes, directory: out), items: plan.jobs.count,
            seconds: run.seconds, out: out, quiet: quiet)
        if run.interrupted { throw ExitCode(130) }
        try RunOptions.checkTemporary(failed: run.outcomes.filter { $0.temporary == true }.count)
        try CacheOptions.checkShared(thumbnailer.cache)
        let failed = running.run == nil && run.outcomes.contains { $0.error != nil }
        if !plan.problems.isEmpty || failed { throw ExitCode(1) }
    }

    /// One input to one file, or to standard output with `-o -`.
    private func single(
        _ thumbnailer: CachedThumbnailer, request: ThumbnailRequest, options: EncodeOptions, output: String
    ) throws {
        Vips.concurrency = VipsThreads.perImage(jobs: 1, items: 1)
        let walk = InputWalker.walk(inputs)
        for problem in walk.problems { Console.error("cardrender: \(problem)") }
        guard let item = walk.items.first else { throw ExitCode(1) }
        do {
            let thumbnail = try thumbnailer.thumbnail(file: item.path, request: request, options: options).thumbnail
            if let warning = thumbnail.warning { Console.error("cardrender: warning: \(warning)") }
            if output == "-" {
                Console.out(thumbnail.data)
            } else {
                try thumbnail.write(to: output)
                if !quiet { Console.out("\(output) \(thumbnail.width)x\(thumbnail.height)\(Self.frames(thumbnail))") }
            }
        } catch {
            Console.error("cardrender: \(ErrorText.describe(error, file: item.path))")
            throw ExitCode(1)
        }
    }

    /// ` (1 of 30 frames)` when an animation was cut short, else nothing.
    static func frames(_ thumbnail: Thumbnail) -> String {
        thumbnail.sourceFrames > thumbnail.frames ? " (\(thumbnail.frames) of \(thumbnail.sourceFrames) frames)" : ""
    }
}
