import CardKit
import RenderCache
import SystemPackage
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Renders the jobs of a batch into an output directory, one card at a time per worker.
public struct CardBatch: Sendable {
    /// The renderer (frames, limits, encodings).
    public let renderer: CardRenderer
    /// The spec for photos without a sidecar (the command line's `--frame`, `--effect`, `--size`).
    public let defaults: CardSpec
    /// Where the outputs go; the input tree is mirrored under it.
    public let outputDirectory: String
    /// The disk cache, if any: a card whose photo bytes, spec and settings were rendered
    /// before is copied from it instead of rendered again.
    public let cache: DiskCache?
    /// Largest spec file read, in bytes.
    public static let maxSpecBytes = 1 << 20

    public init(renderer: CardRenderer, defaults: CardSpec, outputDirectory: String, cache: DiskCache? = nil) {
        self.renderer = renderer
        self.defaults = defaults
        self.outputDirectory = outputDirectory
        self.cache = cache
    }

    /// Renders one job and writes `STEM.print.jpg`, `STEM.sample.jpg` and `STEM.small.png`,
    /// each atomically. Never throws: a failure is reported in the outcome.
    public func render(_ job: CardJob) -> CardOutcome {
        let started = ContinuousClock.now
        var outcome = CardOutcome(input: job.name, spec: job.spec)
        do {
            let spec = try job.spec.map(readSpec) ?? defaults
            let photoPath = try photo(for: job, spec: spec)
            outcome.input = photoPath
            let names = CardOutcome.Outputs(
                print: job.outputStem + ".print." + renderer.printEncoding.format.fileExtension,
                sample: job.outputStem + ".sample.jpg", small: job.outputStem + ".small.png")
            let key = try cache.map { cache in
                try CacheKey(
                    inputDigest: cache.digest(ofFile: photoPath),
                    recipe: CardRecipe(spec: spec, renderer: renderer, cache: cache), versions: CacheVersions.current)
            }
            let (entry, card, cached) = try cachedOrRendered(photoPath, spec: spec, specFile: job.spec, key: key)
            try FileManager.default.createDirectory(
                atPath: FilePath(outputDirectory).pushing(FilePath(job.outputStem)).removingLastComponent().string,
                withIntermediateDirectories: true)
            var files = [("print", names.print), ("sample", names.sample), ("small", names.small)]
            var versos: [CardOutcome.Outputs] = []
            for number in stride(from: 1, through: card.versoCount, by: 1) {
                let stem = job.outputStem + ".verso-\(number)"
                let verso = CardOutcome.Outputs(
                    print: stem + ".print." + renderer.printEncoding.format.fileExtension, sample: stem + ".sample.jpg",
                    small: stem + ".small.png")
                versos.append(verso)
                files += [
                    ("verso-\(number)-print", verso.print), ("verso-\(number)-sample", verso.sample),
                    ("verso-\(number)-small", verso.small),
                ]
            }
            for (name, path) in files {
                guard let data = entry.part(name) else {
                    throw CacheError.unreadable(path: name, reason: "missing part")
                }
                try AtomicFile.write(data, to: FilePath(outputDirectory).pushing(FilePath(path)).string)
            }
            outcome.outputs = names
            outcome.versos = versos.isEmpty ? nil : versos
            outcome.sizes = card.sizes
            outcome.effectiveDPI = card.effectiveDPI
            outcome.quality = card.quality
            outcome.frame = card.frame
            outcome.effect = card.effect
            outcome.warning = card.warning
            outcome.cached = cache == nil ? nil : cached
        } catch {
            outcome.error = Self.describe(error, job: job)
        }
        outcome.seconds = (ContinuousClock.now - started).seconds
        return outcome
    }

    /// The card's files and measurements: from the cache under `key` when it has them,
    /// rendered (and stored under `key`) otherwise.
    private func cachedOrRendered(
        _ photoPath: String, spec: CardSpec, specFile: String?, key: CacheKey?
    ) throws -> (CacheEntry, CachedCard, cached: Bool) {
        if let cache, let key, let entry = cache.entry(for: key),
            let card = try? JSONDecoder().decode(CachedCard.self, from: entry.metadata),
            entry.part("print") != nil, entry.part("sample") != nil, entry.part("small") != nil
        {
            return (entry, card, true)
        }
        let data = try ImageData(contentsOfFile: photoPath, maxBytes: renderer.policy.maxFileBytes)
        let rendered = try renderer.render(photo: data, spec: spec, specFile: specFile ?? "defaults")
        let card = CachedCard(
            sizes: CardOutcome.Sizes(
                print: rendered.front.printSize, sample: rendered.front.sampleSize, small: rendered.front.smallSize),
            versoCount: rendered.versos.count,
            effectiveDPI: (rendered.effectiveDPI * 10).rounded() / 10, quality: rendered.quality,
            frame: rendered.frame, effect: rendered.effect.name.rawValue, warning: rendered.warning)
        var parts = [
            ("print", rendered.front.print), ("sample", rendered.front.sample), ("small", rendered.front.small),
        ]
        for (index, verso) in rendered.versos.enumerated() {
            parts += [
                ("verso-\(index + 1)-print", verso.print), ("verso-\(index + 1)-sample", verso.sample),
                ("verso-\(index + 1)-small", verso.small),
            ]
        }
        let entry = CacheEntry(parts: parts, metadata: try JSONEncoder().encode(card))
        if let cache, let key { cache.storeIfPossible(entry, for: key) }
        return (entry, card, false)
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

    private func photo(for job: CardJob, spec: CardSpec) throws -> String {
        if let named = spec.photo, let specPath = job.spec {
            let path = FilePath(named)
            return path.isAbsolute ? named : FilePath(specPath).removingLastComponent().pushing(path).string
        }
        if let photo = job.photo { return photo }
        throw CardSpecError.expected(
            "the photo's path (this spec has no photo beside it)", at: "photo", received: nil,
            in: job.spec ?? "defaults")
    }

    /// One line naming the file and the cause, whatever layer the error came from.
    public static func describe(_ error: Error, job: CardJob) -> String {
        switch error {
        case let error as ImageInputError: return error.description
        case let error as CardSpecError: return error.description
        case let error as VipsError: return error.file == nil ? "\(job.name): \(error)" : error.description
        case let error as AtomicFile.WriteError: return error.description
        case let error as FrameCatalogueError: return error.description
        case let error as CacheError: return error.description
        case let error as CustomStringConvertible: return "\(job.name): \(error.description)"
        default: return "\(job.name): \(error)"
        }
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
