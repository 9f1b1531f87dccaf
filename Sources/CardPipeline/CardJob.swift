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
    /// The input root the job was found under (the directory argument, or a file argument's
    /// own directory): a photo a spec names must lie inside it.
    public let root: String
    /// What the job is called in reports: the photo, or the spec when there is no photo.
    public var name: String { photo ?? spec ?? outputStem }
    /// The input's path relative to the input root (the photo's, or a standalone spec's):
    /// what decides its shard.
    public var relativePath: String {
        guard let photo else { return outputStem + Self.specSuffix }
        return FilePath(photo).extension.map { outputStem + "." + $0 } ?? outputStem
    }

    public init(photo: String?, spec: String?, outputStem: String, root: String = ".") {
        self.photo = photo
        self.spec = spec
        self.outputStem = outputStem
        self.root = root
    }

    /// The suffix of spec files: `photo.card.json` is the sidecar of `photo.jpg`.
    public static let specSuffix = ".card.json"

    /// The jobs of a walk.
    public struct Plan: Sendable {
        /// Photos in walk order, then standalone specs.
        public var jobs: [CardJob] = []
        /// Files that are neither images nor specs.
        public var skipped: [String] = []
        /// Jobs whose outputs would have the same names, one sentence each.
        public var clashes: [String] = []
    }

    /// Pairs photos with their sidecar specs and turns the remaining specs into jobs; a spec
    /// named as an argument is a spec too (the sidecar of a photo given beside it, else a
    /// standalone spec). Finds every pair of jobs whose outputs would share a name.
    public static func plan(_ walk: InputWalker.Walk) -> Plan {
        var specs = Set(walk.skipped.filter { $0.hasSuffix(specSuffix) })
        let specArguments = walk.items.filter { $0.path.hasSuffix(specSuffix) }
        var plan = Plan()
        var sidecarsTaken = Set<String>()
        for item in walk.items where !item.path.hasSuffix(specSuffix) {
            var stem = FilePath(item.relativePath)
            stem.extension = nil
            var sidecar = FilePath(item.path)
            sidecar.extension = nil
            let specPath = sidecar.string + specSuffix
            let hasSpec = specs.remove(specPath) != nil || FileManager.default.fileExists(atPath: specPath)
            if hasSpec { sidecarsTaken.insert(specPath) }
            plan.jobs.append(
                CardJob(
                    photo: item.path, spec: hasSpec ? specPath : nil, outputStem: stem.string,
                    root: root(of: item.path, relative: item.relativePath)))
        }
        for item in specArguments where !sidecarsTaken.contains(item.path) {
            plan.jobs.append(
                CardJob(
                    photo: nil, spec: item.path, outputStem: String(item.relativePath.dropLast(specSuffix.count)),
                    root: root(of: item.path, relative: item.relativePath)))
        }
        for spec in walk.skipped where specs.contains(spec) {
            let relative = walk.relativePaths[spec] ?? FilePath(spec).lastComponent?.string ?? spec
            plan.jobs.append(
                CardJob(
                    photo: nil, spec: spec, outputStem: String(relative.dropLast(specSuffix.count)),
                    root: root(of: spec, relative: relative)))
        }
        plan.skipped = walk.skipped.filter { !$0.hasSuffix(specSuffix) }
        plan.clashes = clashes(plan.jobs)
        return plan
    }

    /// One sentence per job whose output names another job's already take: the same stem
    /// (`a.jpg` and `a.png`), or a stem that is another's back (`a.verso-1.jpg` beside a
    /// card `a` with recipients).
    static func clashes(_ jobs: [CardJob]) -> [String] {
        var taken: [String: CardJob] = [:]
        var clashes: [String] = []
        for job in jobs {
            if let first = taken[job.outputStem] {
                clashes.append(OutputPlan.clash(job.name, first.name, output: job.outputStem + ".print.*"))
            } else {
                taken[job.outputStem] = job
            }
        }
        for job in jobs {
            // `STEM.verso-N`: the name of the back N of the card STEM.
            let marker = ".verso-"
            let number = job.outputStem.reversed().prefix { $0.isASCII && $0.isNumber }
            let beforeNumber = job.outputStem.dropLast(number.count)
            guard !number.isEmpty, beforeNumber.hasSuffix(marker),
                let card = taken[String(beforeNumber.dropLast(marker.count))]
            else { continue }
            clashes.append(OutputPlan.clash(job.name, card.name, output: job.outputStem + ".print.*"))
        }
        return clashes
    }

    /// The root a walked file was found under: its path without its relative path.
    private static func root(of path: String, relative: String) -> String {
        var root = FilePath(path)
        for _ in FilePath(relative).components { root.removeLastComponent() }
        return root.isEmpty ? "." : root.string
    }
}
