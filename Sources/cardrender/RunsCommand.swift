import ArgumentParser
import CardPipeline
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `cardrender runs`: check and join the shards of a run (`render`/`thumb --run ID --shard K/N`).
struct RunsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "runs",
        abstract: "Check and join the shards of a sharded run from their manifests (OUT/runs/ID/).",
        subcommands: [Verify.self, Merge.self]
    )

    /// `cardrender runs verify`.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Check that a run is whole: every input in exactly one shard's manifest, every output present with its digest.",
            discussion: """
                Reads OUT/runs/ID/shard-K-of-N.jsonl for K = 0 ..< N, walks the inputs as the \
                shards did, and checks every output file a manifest lists against its SHA-256. \
                Exit status: 0 the run is whole, 1 it is not (one line per problem), 64 usage error.
                """)

        @Argument(help: ArgumentHelp("The run's name (its --run).", valueName: "id"))
        var id: String

        @Option(help: "How many shards the run was cut into (the N of --shard K/N).")
        var shards: Int

        @Option(help: ArgumentHelp("The run's output directory (its --out).", valueName: "dir"))
        var out: String

        @Option(
            parsing: .upToNextOption, help: ArgumentHelp("The run's inputs, as given to its shards.", valueName: "path")
        )
        var inputs: [String]

        func validate() throws {
            guard shards >= 1 else { throw ValidationError("--shards must be at least 1; received \(shards).") }
            guard RunManifest.isValidName(id) else { throw ValidationError("'\(id)' cannot be the name of a run.") }
            guard !inputs.isEmpty else { throw ValidationError("--inputs: name the run's inputs.") }
        }

        func run() throws {
            let verification = RunVerification(run: id, shards: shards, output: out) { kind in
                switch kind {
                case .render:
                    let plan = CardBatch.plan(inputs)
                    return (plan.jobs.map(\.relativePath), plan.problems)
                case .thumb:
                    let walk = InputWalker.walk(inputs)
                    return (walk.items.map(\.relativePath), walk.problems)
                }
            }
            for problem in verification.problems { Console.error("cardrender: \(problem)") }
            let counts = verification.counts
            let items = counts.values.reduce(0, +)
            let line =
                "run \(id): \(items) items in \(verification.manifests.count) of \(shards) manifests (\(counts[.rendered] ?? 0) rendered, \(counts[.cached] ?? 0) cached, \(counts[.rejected] ?? 0) rejected), \(verification.outputsChecked) outputs checked"
            guard verification.passed else {
                Console.error("cardrender: \(line): \(verification.problems.count) problem(s).")
                throw ExitCode(1)
            }
            Console.out("\(line): whole.")
        }
    }

    /// `cardrender runs merge`.
    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Join a run's shard manifests into one report (and, for cards, one gallery).",
            discussion: """
                Writes OUT/report.json (and OUT/index.html for a render run) from \
                OUT/runs/ID/shard-K-of-N.jsonl. Every shard's manifest must be there. Exit \
                status: 0 written, 1 a manifest is missing or unreadable, 64 usage error.
                """)

        @Argument(help: ArgumentHelp("The run's name (its --run).", valueName: "id"))
        var id: String

        @Option(help: ArgumentHelp("The run's output directory (its --out).", valueName: "dir"))
        var out: String

        @Option(help: ArgumentHelp("Where to write the report (default: OUT/report.json).", valueName: "file"))
        var report: String?

        func validate() throws {
            guard RunManifest.isValidName(id) else { throw ValidationError("'\(id)' cannot be the name of a run.") }
        }

        func run() throws {
            let manifests = try readManifests()
            let producer = manifests[0].header.producer
            let total = manifests.reduce(0) { $0 + $1.header.items }
            let seconds = manifests.map(\.header.seconds).max() ?? 0
            let reportPath = report ?? FilePath(out).appending("report.json").string
            switch manifests[0].header.kind {
            case .render:
                let cards = manifests.flatMap { $0.entries.compactMap(\.card) }
                let merged = BatchReport(
                    producer: producer, interrupted: false, total: total, outcomes: cards, seconds: seconds)
                try merged.write(to: reportPath)
                try Gallery.write(merged, to: out)
                Console.out("\(merged.summaryLine)")
                Console.out("report: \(reportPath), gallery: \(FilePath(out).appending("index.html").string)")
            case .thumb:
                let thumbnails = manifests.flatMap { $0.entries.compactMap(\.thumbnail) }
                let merged = BatchReport(
                    producer: producer, interrupted: false, total: total, outcomes: thumbnails, seconds: seconds)
                try merged.write(to: reportPath)
                Console.out(
                    "\(merged.summary.written) of \(merged.summary.total) thumbnails written, \(merged.summary.failed) failed; report: \(reportPath)"
                )
            }
        }

        /// Every shard's manifest, found by name (`shard-K-of-N.jsonl`, one N for all).
        private func readManifests() throws -> [RunManifest] {
            let directory = RunManifest.directory(run: id, output: out)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            let shards = names.compactMap(Self.shard(named:))
            let counts = Set(shards.map(\.count))
            guard counts.count == 1, let count = counts.first else {
                Console.error(
                    counts.isEmpty
                        ? "cardrender: \(directory) holds no shard manifests (shard-K-of-N.jsonl); is the run's name or --out wrong?"
                        : "cardrender: \(directory) holds manifests of runs cut in \(counts.sorted()) shards; remove the stale ones."
                )
                throw ExitCode(1)
            }
            let present = Set(shards.map(\.index))
            let missing = (0..<count).filter { !present.contains($0) }
            guard missing.isEmpty else {
                Console.error(
                    "cardrender: run \(id): no manifest from shard(s) \(missing.map { "\($0)/\(count)" }.joined(separator: ", ")); run them (again) first."
                )
                throw ExitCode(1)
            }
            var manifests: [RunManifest] = []
            for index in 0..<count {
                let path = FilePath(directory).appending("shard-\(index)-of-\(count).jsonl").string
                do throws(RunManifestError) {
                    manifests.append(try RunManifest(reading: path))
                } catch {
                    Console.error("cardrender: \(error)")
                    throw ExitCode(1)
                }
            }
            guard Set(manifests.map(\.header.kind)).count == 1 else {
                Console.error("cardrender: run \(id): the manifests come from different commands.")
                throw ExitCode(1)
            }
            return manifests
        }

        /// The shard a manifest's file name names, e.g. `shard-3-of-16.jsonl`.
        static func shard(named name: String) -> Shard? {
            guard name.hasPrefix("shard-"), name.hasSuffix(".jsonl") else { return nil }
            let parts = name.dropFirst("shard-".count).dropLast(".jsonl".count).split(separator: "-")
            guard parts.count == 3, parts[1] == "of", let index = Int(parts[0]), let count = Int(parts[2]) else {
                return nil
            }
            return try? Shard(index: index, count: count)
        }
    }
}
