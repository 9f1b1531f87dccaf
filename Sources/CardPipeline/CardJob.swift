import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One card to render: a photo, its spec (sidecar or standalone), and its output name.
public struct CardJob: Sendable, Equatable {
    /// The photo; nil for a standalone spec, whose `photo` field names it.
    public let photo: String?
    /// The spec file, if any (`photo.card.json` beside `photo.jpg`, or a standalone spec).
    public let spec: String?
    /// The output path without extension, relative to the output directory (mirrors the input tree).
    public let outputStem: String
    /// What the job is called in reports: the photo, or the spec when there is no photo.
    public var name: String { photo ?? spec ?? outputStem }
    /// The input's path relative to the input root (the photo's, or a standalone spec's):
    /// what decides its shard.
    public var relativePath: String {
        guard let photo else { return outputStem + Self.specSuffix }
        return FilePath(photo).extension.map { outputStem + "." + $0 } ?? outputStem
    }

    public init(photo: String?, spec: String?, outputStem: String) {
        self.photo = photo
        self.spec = spec
        self.outputStem = outputStem
    }

    /// The suffix of spec files: `photo.card.json` is the sidecar of `photo.jpg`.
    public static let specSuffix = ".card.json"

    /// Pairs photos with their sidecar specs and turns the remaining specs into jobs.
    /// - Returns: the jobs (photos in walk order, then standalone specs), and the skipped
    ///   non-image files that are not specs.
    public static func plan(_ walk: InputWalker.Walk) -> (jobs: [CardJob], skipped: [String]) {
        var specs = Set(walk.skipped.filter { $0.hasSuffix(specSuffix) })
        var jobs: [CardJob] = []
        for item in walk.items {
            var stem = FilePath(item.relativePath)
            stem.extension = nil
            var sidecar = FilePath(item.path)
            sidecar.extension = nil
            let specPath = sidecar.string + specSuffix
            let hasSpec = specs.remove(specPath) != nil || FileManager.default.fileExists(atPath: specPath)
            jobs.append(CardJob(photo: item.path, spec: hasSpec ? specPath : nil, outputStem: stem.string))
        }
        for spec in walk.skipped where specs.contains(spec) {
            let relative = walk.relativePaths[spec] ?? FilePath(spec).lastComponent?.string ?? spec
            jobs.append(CardJob(photo: nil, spec: spec, outputStem: String(relative.dropLast(specSuffix.count))))
        }
        return (jobs, walk.skipped.filter { !$0.hasSuffix(specSuffix) })
    }
}
