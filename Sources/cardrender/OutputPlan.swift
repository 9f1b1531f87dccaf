import CardPipeline
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
struct OutputPlan {
    /// One input and its output path.
    struct Job: Sendable {
        let input: InputItem
        let output: String
    }

    /// Inputs with a unique output path.
    private(set) var jobs: [Job] = []
    /// Inputs whose output path another input already takes (e.g. `a.jpg` and `a.png`).
    private(set) var conflicts: [String] = []

    private static func fileSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// Maps every item to `directory/<relative path with fileExtension>`.
    init(items: [InputItem], directory: String, fileExtension: String) {
        var taken: [String: String] = [:]
        for item in items {
            var relative = FilePath(item.relativePath)
            relative.extension = fileExtension
            let output = FilePath(directory).pushing(relative).string
            if let first = taken[output] {
                conflicts.append(
                    "\(item.path): its output \(output) is already written for \(first); rename one of them.")
                continue
            }
            taken[output] = item.path
            jobs.append(Job(input: item, output: output))
        }
        // Largest files first: a big photo started last would leave the other workers
        // idle at the end of the batch (longest-processing-time-first scheduling).
        let sizes = Dictionary(jobs.map { ($0.input.path, Self.fileSize($0.input.path)) }) { first, _ in first }
        jobs.sort { sizes[$0.input.path, default: 0] > sizes[$1.input.path, default: 0] }
    }
}
