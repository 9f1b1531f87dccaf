import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Where each input's output goes under an output directory, mirroring the input tree.
public struct OutputPlan: Sendable {
    /// One input and its output path.
    public struct Job: Sendable {
        public let input: InputItem
        public let output: String
    }

    /// Inputs with a unique output path.
    public private(set) var jobs: [Job] = []
    /// Inputs whose output path another input already takes (e.g. `a.jpg` and `a.png`).
    public private(set) var conflicts: [String] = []

    /// Maps every item to `directory/<relative path with fileExtension>`.
    public init(items: [InputItem], directory: String, fileExtension: String) {
        var taken: [String: String] = [:]
        for item in items {
            var relative = FilePath(item.relativePath)
            relative.extension = fileExtension
            let output = FilePath(directory).pushing(relative).string
            if let first = taken[output] {
                conflicts.append(Self.clash(item.path, first, output: output))
                continue
            }
            taken[output] = item.path
            jobs.append(Job(input: item, output: output))
        }
        jobs = FileSizes.largestFirst(jobs) { $0.input.path }
    }

    /// The sentence for two inputs whose outputs would have the same name.
    static func clash(_ input: String, _ first: String, output: String) -> String {
        "\(input) and \(first) would both write \(output); rename one of them."
    }
}
