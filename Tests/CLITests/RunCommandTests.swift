import CardPipeline
import Foundation
import TestSupport
import Testing

/// A run cut into shards (`--run ID --shard K/N`), checked by `runs verify` and joined by
/// `runs merge`, on real files with the built binary.
@Suite(.libvips) struct RunCommandTests {
    /// Runs the binary on a thread of its own: these batches take seconds, and Swift's
    /// cooperative pool (two threads here) must stay free for the other suites' servers.
    static func run(_ arguments: [String], cache: String? = nil) async throws -> Tools.Run {
        try await Tools.onWorkerThread { try ThumbCommandTests.run(arguments, cache: cache) }
    }

    /// Eight small photos (two under `sub/`) and one file that is not a photo but says it is.
    static func inputs(_ label: String) async throws -> String {
        try await Tools.onWorkerThread { try makeInputs(label) }
    }

    private static func makeInputs(_ label: String) throws -> String {
        let input = try Fixtures.scratchDirectory(label)
        try FileManager.default.createDirectory(atPath: input + "/sub", withIntermediateDirectories: true)
        for index in 0..<8 {
            let name = index < 6 ? "p\(index).png" : "sub/q\(index).png"
            try Synthetic.image(input + "/" + name, width: 300 + index, height: 200, bands: 3) { x, y in
                [UInt8((x * 3 + index * 20) % 256), UInt8(y % 256), 90]
            }
        }
        try Data("not a JPEG at all".utf8).write(to: URL(fileURLWithPath: input + "/broken.jpg"))
        return input
    }

    static func manifests(_ out: String, run: String, shards: Int) throws -> [RunManifest] {
        try (0..<shards).map { index in
            try RunManifest(reading: "\(out)/runs/\(run)/shard-\(index)-of-\(shards).jsonl")
        }
    }

    /// Item -> (status, key, output digests), over all of a run's manifests.
    static func record(_ manifests: [RunManifest]) -> [String: String] {
        var record: [String: String] = [:]
        for entry in manifests.flatMap(\.entries) {
            let outputs = entry.outputs.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            record[entry.item] = "\(entry.key ?? "-") \(outputs.joined(separator: ","))"
        }
        return record
    }

    @Test func threeShardsAreVerifiedMergedAndEqualOneProcess() async throws {
        let input = try await Self.inputs("run-in")
        let cache = try Fixtures.scratchDirectory("run-cache")
        let out = try Fixtures.scratchDirectory("run-out")
        for index in 0..<3 {
            let shard = try await Self.run(
                ["render", input, "--out", out, "--quiet", "--run", "r1", "--shard", "\(index)/3"], cache: cache)
            // The broken photo is rejected and recorded: no shard fails because of it.
            #expect(shard.status == 0, "shard \(index): \(shard.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: out + "/report.json"), "a shard writes no batch report")
        let manifests = try Self.manifests(out, run: "r1", shards: 3)
        #expect(manifests.map(\.header.items).reduce(0, +) == 9)
        let entries = manifests.flatMap(\.entries)
        #expect(Set(entries.map(\.item)).count == 9, "each item once")
        #expect(entries.filter { $0.status == .rendered }.count == 8)
        let broken = try #require(entries.first { $0.item == "broken.jpg" })
        #expect(broken.status == .rejected)
        #expect(broken.reason?.contains("broken.jpg") == true)
        for manifest in manifests {
            for entry in manifest.entries {
                #expect(Shard.index(of: entry.item, count: 3) == manifest.header.shard, "\(entry.item)")
            }
        }

        let verify = try await Self.run(["runs", "verify", "r1", "--shards", "3", "--out", out, "--inputs", input])
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdoutText.contains("9 items in 3 of 3 manifests (8 rendered, 0 cached, 1 rejected)"))
        #expect(verify.stdoutText.contains("24 outputs checked"))

        let merge = try await Self.run(["runs", "merge", "r1", "--out", out])
        #expect(merge.status == 0, "\(merge.stderr)")
        let report = try JSONDecoder().decode(
            BatchReport<CardOutcome>.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/report.json")))
        #expect(report.summary.total == 9)
        #expect(report.summary.rendered == 8)
        #expect(report.summary.failed == 1)
        let gallery = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
        #expect(gallery.contains("sub/q7.small.png"))
        #expect(gallery.contains("broken.jpg"))

        // One process, same inputs, its own cache: the same keys and the same bytes.
        let whole = try Fixtures.scratchDirectory("run-whole")
        let single = try await Self.run(["render", input, "--out", whole, "--quiet", "--run", "w"])
        #expect(single.status == 0, "\(single.stderr)")
        let one = try Self.manifests(whole, run: "w", shards: 1)
        #expect(Self.record(one) == Self.record(manifests))
        #expect(
            Self.record(one).filter { $0.key != "broken.jpg" }.values.allSatisfy { !$0.hasPrefix("-") },
            "every card has a key")

        // Again, on the first cache: every card from the cache, the same record.
        let again = try Fixtures.scratchDirectory("run-again")
        for index in 0..<3 {
            let shard = try await Self.run(
                ["render", input, "--out", again, "--quiet", "--run", "r2", "--shard", "\(index)/3"], cache: cache)
            #expect(shard.status == 0, "\(shard.stderr)")
        }
        let second = try Self.manifests(again, run: "r2", shards: 3)
        #expect(second.flatMap(\.entries).filter { $0.status == .cached }.count == 8)
        #expect(Self.record(second) == Self.record(manifests))
    }

    @Test func verifyNamesWhatIsMissingOrWrong() async throws {
        let input = try await Self.inputs("run-bad-in")
        let out = try Fixtures.scratchDirectory("run-bad-out")
        for index in 0..<2 {
            let shard = try await Self.run([
                "thumb", input, "--width", "64", "--out", out, "--quiet", "--run", "t", "--shard", "\(index)/2",
            ])
            #expect(shard.status == 0, "\(shard.stderr)")
        }
        let verify = { try await Self.run(["runs", "verify", "t", "--shards", "2", "--out", out, "--inputs", input]) }
        let whole = try await verify()
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(whole.stdoutText.contains("8 rendered, 0 cached, 1 rejected"))

        // A changed output, a missing output, an input the run never saw.
        let changed = out + "/p0.png"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: changed))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: changed))
        try FileManager.default.removeItem(atPath: out + "/sub/q6.png")
        try Synthetic.quadrants(input + "/late.png")
        let broken = try await verify()
        #expect(broken.status == 1)
        #expect(broken.stderr.contains("p0.png: its output \(out)/p0.png has SHA-256"), "\(broken.stderr)")
        #expect(broken.stderr.contains("its output \(out)/sub/q6.png is missing"), "\(broken.stderr)")
        #expect(broken.stderr.contains("late.png: in no manifest (shard \(Shard.index(of: "late.png", count: 2))/2"))

        // A shard that never finished.
        try FileManager.default.removeItem(atPath: out + "/runs/t/shard-1-of-2.jsonl")
        let partial = try await verify()
        #expect(partial.status == 1)
        #expect(partial.stderr.contains("shard 1/2: no manifest"), "\(partial.stderr)")
        let merge = try await Self.run(["runs", "merge", "t", "--out", out])
        #expect(merge.status == 1)
        #expect(merge.stderr.contains("no manifest from shard(s) 1/2"), "\(merge.stderr)")
    }

    @Test func thumbRunsMergeIntoOneReport() async throws {
        let input = try await Self.inputs("run-thumb-in")
        let out = try Fixtures.scratchDirectory("run-thumb-out")
        for index in 0..<3 {
            let shard = try await Self.run([
                "thumb", input, "--width", "50", "--out", out, "--quiet", "--run", "m", "--shard", "\(index)/3",
            ])
            #expect(shard.status == 0, "\(shard.stderr)")
        }
        let merge = try await Self.run(["runs", "merge", "m", "--out", out])
        #expect(merge.status == 0, "\(merge.stderr)")
        let report = try JSONDecoder().decode(
            BatchReport<ThumbOutcome>.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/report.json")))
        #expect(report.summary.total == 9)
        #expect(report.summary.written == 8)
        #expect(report.summary.failed == 1)
        #expect(report.outcomes.filter { $0.width == 50 }.count == 8)
    }

    /// The index each scheduler hands its tasks, used as the README's examples use it:
    /// Slurm, Kubernetes and AWS Batch give the same inputs to the same index.
    @Test func theSchedulersIndexVariablesPickTheSameInputs() async throws {
        let input = try await Self.inputs("run-contract-in")
        var items: [String: [Set<String>]] = [:]
        for variable in ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"] {
            let out = try Fixtures.scratchDirectory("run-contract-\(variable)")
            for index in 0..<2 {
                var environment = ProcessInfo.processInfo.environment
                environment["XDG_CACHE_HOME"] = try Fixtures.scratchDirectory("cache")
                environment[variable] = String(index)
                let script =
                    "exec \"$0\" thumb \"$1\" --width 30 --out \"$2\" --quiet --run c --shard \"$\(variable)/2\""
                let task = try await Tools.onWorkerThread { [environment] in
                    try Tools.run(
                        "/bin/sh", ["-c", script, ThumbCommandTests.binary, input, out], environment: environment)
                }
                #expect(task.status == 0, "\(variable)=\(index): \(task.stderr)")
            }
            items[variable] = try Self.manifests(out, run: "c", shards: 2).map { Set($0.entries.map(\.item)) }
        }
        let slurm = try #require(items["SLURM_ARRAY_TASK_ID"])
        #expect(slurm.count == 2 && slurm[0].union(slurm[1]).count == 9 && slurm[0].isDisjoint(with: slurm[1]))
        #expect(items["JOB_COMPLETION_INDEX"] == slurm)
        #expect(items["AWS_BATCH_JOB_ARRAY_INDEX"] == slurm)
    }

    @Test func runUsageErrors() async throws {
        let directory = try Fixtures.scratchDirectory("run-usage")
        try Synthetic.quadrants(directory + "/q.png")
        for (arguments, words) in [
            (["render", directory, "--out", directory + "/o", "--shard", "0/2"], "--shard needs --run"),
            (["render", directory, "--out", directory + "/o", "--run", "../x"], "--run must be"),
            (["thumb", directory + "/q.png", "--width", "9", "-o", directory + "/x.png", "--run", "a"], "--out DIR"),
            (["runs", "verify", "a", "--shards", "0", "--out", directory, "--inputs", directory], "at least 1"),
        ] {
            let run = try await Self.run(arguments)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr.contains(words), "\(arguments): \(run.stderr)")
        }
    }

    /// A full disk is the machine's failure, not the input's: the shard exits 75 so the
    /// scheduler runs it again, and the cards it could not write are not in a manifest.
    /// Whether this machine lets the tests mount a tmpfs (root, no container rule against
    /// it): tried once, on a scratch directory, and unmounted.
    static let tmpfsMountable: Bool = {
        guard let probe = try? Fixtures.scratchDirectory("mount-probe"),
            let mount = try? Tools.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe]),
            mount.status == 0
        else { return false }
        _ = try? Tools.run("/bin/umount", [probe])
        return true
    }()

    @Test(.enabled(if: tmpfsMountable, "a full disk needs a small tmpfs, and mounting one is not allowed here"))
    func aFullDiskExits75() async throws {
        let input = try await Self.inputs("run-full-in")
        let out = try Fixtures.scratchDirectory("run-full-out")
        let mount = try Tools.run("/bin/mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", out])
        try #require(mount.status == 0, "mounting worked for the probe, then failed: \(mount.stderr)")
        defer { _ = try? Tools.run("/bin/umount", [out]) }
        let shard = try await Self.run(["render", input, "--out", out, "--quiet", "--run", "f", "--shard", "0/1"])
        #expect(shard.status == 75, "\(shard.stderr)")
        #expect(shard.stderr.contains("No space left on device"), "\(shard.stderr)")
        #expect(shard.stderr.contains("Exiting 75"), "\(shard.stderr)")
    }
}
