import RenderCache
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The check of a finished run (`cardrender runs verify`): every shard left a manifest,
/// every input is in exactly one manifest (the one its hash names), and every output a
/// manifest lists is on disk with the digest it lists.
public struct RunVerification: Sendable {
    /// The manifests found, by shard.
    public private(set) var manifests: [RunManifest] = []
    /// What is wrong, one sentence each; empty when the run is whole.
    public private(set) var problems: [String] = []
    /// Items by how they ended.
    public private(set) var counts: [RunManifest.Status: Int] = [:]
    /// Output files checked.
    public private(set) var outputsChecked = 0

    /// Checks run `run` of `shards` shards whose outputs and manifests are under `output`.
    /// - Parameter expectedItems: the items the run should have done (relative paths), for
    ///   the kind of run the manifests say; with the problems met listing them (inputs that
    ///   cannot be read).
    public init(
        run: String, shards: Int, output: String,
        expectedItems: (RunManifest.Kind) -> (items: [String], problems: [String])
    ) {
        let directory = RunManifest.directory(run: run, output: output)
        for index in 0..<shards {
            guard let shard = try? Shard(index: index, count: shards) else { continue }
            let path = FilePath(directory).appending(RunManifest.fileName(shard)).string
            guard FileManager.default.fileExists(atPath: path) else {
                problems.append("shard \(shard): no manifest \(path) (the shard has not finished; run it again).")
                continue
            }
            do throws(RunManifestError) {
                let manifest = try RunManifest(reading: path)
                let header = manifest.header
                guard header.run == run, header.shard == index, header.shards == shards else {
                    problems.append(
                        "\(path) is the manifest of run \(header.run), shard \(header.shard)/\(header.shards), not of \(run), shard \(shard)."
                    )
                    continue
                }
                manifests.append(manifest)
            } catch {
                problems.append("shard \(shard): \(error)")
            }
        }
        let kinds = Set(manifests.map(\.header.kind))
        guard kinds.count <= 1 else {
            problems.append(
                "the manifests of run \(run) come from different commands (\(kinds.map(\.rawValue).sorted())).")
            return
        }
        var seen: [String: Int] = [:]
        for manifest in manifests {
            let shard = manifest.header.shard
            for entry in manifest.entries {
                if let other = seen[entry.item] {
                    problems.append(
                        "\(entry.item): in the manifests of shards \(other) and \(shard); an item belongs to one.")
                    continue
                }
                seen[entry.item] = shard
                let owner = Shard.index(of: entry.item, count: shards)
                if owner != shard {
                    problems.append("\(entry.item): in the manifest of shard \(shard) but belongs to shard \(owner).")
                }
                counts[entry.status, default: 0] += 1
                if entry.status != .rejected { check(entry, output: output) }
            }
        }
        guard let kind = kinds.first else { return }
        let expected = expectedItems(kind)
        problems += expected.problems
        let wanted = Set(expected.items)
        for item in expected.items.sorted() where seen[item] == nil {
            problems.append(
                "\(item): in no manifest (shard \(Shard.index(of: item, count: shards))/\(shards) did not finish it).")
        }
        for item in seen.keys.sorted() where !wanted.contains(item) {
            problems.append("\(item): in the manifest of shard \(seen[item]!) but not among the inputs.")
        }
    }

    /// Whether the run is whole.
    public var passed: Bool { problems.isEmpty }

    private mutating func check(_ entry: RunManifest.Entry, output: String) {
        if entry.outputs.isEmpty {
            problems.append("\(entry.item): \(entry.status.rawValue) but its manifest entry lists no output.")
        }
        for (relative, digest) in entry.outputs.sorted(by: { $0.key < $1.key }) {
            let path = FilePath(output).pushing(FilePath(relative)).string
            outputsChecked += 1
            guard let data = FileManager.default.contents(atPath: path) else {
                problems.append("\(entry.item): its output \(path) is missing.")
                continue
            }
            let actual = ContentDigest.of(data)
            if actual != digest {
                problems.append(
                    "\(entry.item): its output \(path) has SHA-256 \(actual), the manifest says \(digest).")
            }
        }
    }
}
