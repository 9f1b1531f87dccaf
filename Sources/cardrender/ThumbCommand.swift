import ArgumentParser
import CardKit
import CardPipeline
import RenderCache
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

/// `cardrender thumb`: GD-style thumbnails of files and directories.
struct ThumbCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumb",
        abstract: "Make thumbnails at a width in pixels; the height follows the aspect ratio.",
        discussion: """
            Inputs are files or directories (walked recursively; the output tree mirrors \
            the input). Formats are recognised by content: JPEG, PNG, WebP, HEIC/AVIF, TIFF, \
            GIF (first frame). Exit status: 0 all written, 1 some failed (one line each on \
            stderr; the others are still written), 64 usage error.
            """
    )

    @Argument(help: "Image files or directories.")
    var inputs: [String]

    @Option(help: "Width of the thumbnail in pixels.")
    var width: Int

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

    @Option(help: "Images processed in parallel (default: the number of cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Largest width accepted.")
    var maxWidth: Int = 8192

    @Flag(help: "Allow a width above the source width (default: the source size is kept).")
    var enlarge = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @OptionGroup var decode: DecodeOptions

    @OptionGroup var caching: CacheOptions

    func validate() throws {
        guard (1...maxWidth).contains(width) else {
            throw ValidationError("--width must be from 1 to \(maxWidth); received \(width).")
        }
        if let quality, !(1...100).contains(quality) {
            throw ValidationError("--quality must be from 1 to 100; received \(quality).")
        }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1; received \(jobs).") }
        switch (out, output) {
        case (nil, nil):
            throw ValidationError("Say where thumbnails go: --out DIR, or -o FILE (or -o -) for one input.")
        case (.some, .some):
            throw ValidationError("Use either --out DIR or -o FILE, not both.")
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

    func run() throws {
        let thumbnailer = Thumbnailer(maxWidth: maxWidth, policy: decode.policy)
        let options = EncodeOptions(format: format, quality: quality)
        let cache = caching.open()
        let cached = cache.map { CachedThumbnailer(thumbnailer: thumbnailer, cache: $0) }
        defer {
            if let cache {
                cache.collectGarbage()
                cache.flushStatistics()
            }
        }
        /// Renders through the cache when there is one.
        let make: @Sendable (String) throws -> Thumbnail = { [width, enlarge] path in
            if let cached {
                return try cached.thumbnail(file: path, width: width, enlarge: enlarge, options: options).thumbnail
            }
            return try thumbnailer.thumbnail(file: path, width: width, enlarge: enlarge, options: options)
        }
        let walk = InputWalker.walk(inputs)
        for problem in walk.problems { Console.error("cardrender: \(problem)") }
        var failures = walk.problems.count

        if let output {
            guard let item = walk.items.first else { throw ExitCode(1) }
            do {
                let thumbnail = try make(item.path)
                if let warning = thumbnail.warning { Console.error("cardrender: warning: \(warning)") }
                if output == "-" {
                    Console.out(thumbnail.data)
                } else {
                    try thumbnail.write(to: output)
                    if !quiet { Console.out("\(output) \(thumbnail.width)x\(thumbnail.height)") }
                }
            } catch {
                Console.error("cardrender: \(describe(error, file: item.path))")
                throw ExitCode(1)
            }
            return
        }

        let directory = out!
        let plan = OutputPlan(items: walk.items, directory: directory, fileExtension: format.fileExtension)
        for conflict in plan.conflicts { Console.error("cardrender: \(conflict)") }
        failures += plan.conflicts.count
        Vips.concurrency = VipsThreads.perImage(jobs: jobs, items: plan.jobs.count)
        let failed = Mutex(0)
        let quiet = self.quiet
        BatchRunner(jobs: jobs).run(
            plan.jobs,
            work: { job -> Result<Thumbnail, Error> in
                Result {
                    try FileManager.default.createDirectory(
                        atPath: FilePath(job.output).removingLastComponent().string,
                        withIntermediateDirectories: true)
                    let thumbnail = try make(job.input.path)
                    try thumbnail.write(to: job.output)
                    return thumbnail
                }
            },
            completed: { _, job, result in
                switch result {
                case .success(let thumbnail):
                    if let warning = thumbnail.warning { Console.error("cardrender: warning: \(warning)") }
                    if !quiet { Console.out("\(job.output) \(thumbnail.width)x\(thumbnail.height)") }
                case .failure(let error):
                    failed.withLock { $0 += 1 }
                    Console.error("cardrender: \(describe(error, file: job.input.path))")
                }
            })
        failures += failed.withLock { $0 }
        if failures > 0 { throw ExitCode(1) }
    }
}

/// An error as one line that names the file, whatever layer it came from.
func describe(_ error: Error, file: String) -> String {
    switch error {
    case let error as ImageInputError: return error.description
    case let error as VipsError: return error.file == nil ? "\(file): \(error)" : error.description
    case let error as AtomicFile.WriteError: return error.description
    case let error as CustomStringConvertible: return "\(file): \(error.description)"
    default: return "\(file): \(error)"
    }
}
