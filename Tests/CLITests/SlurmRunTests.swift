import CardPipeline
import Foundation
import TestSupport
import Testing

/// Sharded runs on a real one-node Slurm cluster with a real S3 cache (SeaweedFS), run by
/// the installed artifact with the toolchain off `PATH`, as the README tells an operator
/// to: a job array of 4 shards, 2 at a time, requeued on failure, then a verify job
/// (`--dependency=afterok`). Each task has its own disk cache, as separate nodes would.
@Suite(
    .serialized, .libvips,
    .enabled(if: SlurmCluster.available, Comment(rawValue: SlurmCluster.missing)),
    .enabled(if: SeaweedServer.binary != nil, SeaweedServer.missing),
    .enabled(
        if: InstalledArtifact.binary != nil,
        "no installed artifact (.build/dist/cardrender): run `bash scripts/package.sh` (scripts/test.sh does)"))
struct SlurmRunTests {
    static let shards = 4

    /// A scratch area with the inputs (8 photos and one broken file), the S3 endpoint
    /// file the tasks read at start (so a restarted store can move), and the scripts.
    struct Area {
        let directory: String
        let input: String
        let endpointFile: String
        let gate: String

        init(_ label: String) throws {
            directory = try Fixtures.scratchDirectory(label)
            input = directory + "/photos"
            endpointFile = directory + "/endpoint"
            gate = directory + "/go"
            try FileManager.default.createDirectory(atPath: input + "/sub", withIntermediateDirectories: true)
            for index in 0..<8 {
                let name = index < 6 ? "p\(index).jpg" : "sub/q\(index).jpg"
                try Synthetic.image(input + "/" + name, width: 600 + index * 8, height: 400, bands: 3) { x, y in
                    [UInt8((x / 2 + index * 25) % 256), UInt8((y / 2) % 256), UInt8((x ^ y) % 256)]
                }
            }
            try Data("not a photo".utf8).write(to: URL(fileURLWithPath: input + "/broken.jpg"))
        }

        /// What the shipped scripts run as `CARDRENDER`: the installed artifact with the
        /// toolchain off `PATH`, the store's address read at start, a disk cache per task
        /// (as separate nodes would have); waits for the gate file first when `gated`.
        func node(run: String, store: SeaweedServer, gated: Bool) throws -> String {
            let script = """
                #!/bin/sh
                export PATH=/usr/bin:/bin
                export AWS_ENDPOINT_URL="$(cat \(endpointFile))" AWS_REGION=us-east-1
                export AWS_ACCESS_KEY_ID=\(store.accessKey) AWS_SECRET_ACCESS_KEY=\(store.secretKey)
                export XDG_CACHE_HOME=\(directory)/nodes/\(run)-${SLURM_ARRAY_TASK_ID:-verify}
                \(gated ? "while [ ! -e \(gate) ]; do sleep 0.1; done" : "")
                exec \(InstalledArtifact.binary!) "$@"

                """
            let path = directory + "/node-\(run).sh"
            try Data(script.utf8).write(to: URL(fileURLWithPath: path))
            chmod(path, 0o755)
            return path
        }
    }

    /// Submits run `run` with the shipped `deploy/slurm` scripts, as the README does: the
    /// array (4 shards, 2 at a time), then the verify job after it. Returns their ids.
    static func submit(
        _ cluster: SlurmCluster, _ area: Area, run: String, out: String, store: SeaweedServer, gated: Bool = false
    ) throws -> (array: String, verify: String) {
        let scripts = Fixtures.root.appendingPathComponent("deploy/slurm").path
        let environment = [
            "RUN": run, "SHARDS": String(shards), "INPUTS": area.input, "OUT": out,
            "CARDRENDER": try area.node(run: run, store: store, gated: gated),
            "CARDRENDER_OPTIONS": "--cache s3://fleet/cards --quiet",
        ]
        let array = try cluster.submit(
            [
                "--array=0-\(shards - 1)%2", "-o", "\(area.directory)/\(run)-%a.log",
                scripts + "/cardrender-shard.sbatch",
            ], environment: environment)
        let verify = try cluster.submit(
            [
                "--dependency=afterok:\(array)", "-o", "\(area.directory)/\(run)-verify.log",
                scripts + "/cardrender-verify.sbatch",
            ], environment: environment)
        return (array, verify)
    }

    static func tasks(_ array: String) -> [String] { (0..<shards).map { "\(array)_\($0)" } }

    /// Waits (bounded) for `job` to end.
    static func finish(_ cluster: SlurmCluster, _ job: String, seconds: Double = 240) throws
        -> SlurmCluster.JobState
    {
        var last = try cluster.state(of: job)
        try SlurmCluster.waitUntil(seconds: seconds) {
            last = try cluster.state(of: job)
            return SlurmCluster.isFinished(last)
        }
        return last
    }

    static func manifests(_ out: String, run: String) throws -> [RunManifest] {
        try (0..<shards).map { try RunManifest(reading: "\(out)/runs/\(run)/shard-\($0)-of-\(shards).jsonl") }
    }

    /// What the first test observes, gathered on a worker thread and checked on the test's own.
    struct Observed {
        var verified: SlurmCluster.JobState
        var verifyLog: String
        var tasks: [SlurmCluster.JobState]
        var sharded: [RunManifest]
        var merged: Bool
        var single: Tools.Run
        var one: RunManifest?
        var reverified: SlurmCluster.JobState
        var second: [RunManifest]
    }

    @Test func anArrayOfShardsIsVerifiedEqualsOneProcessAndIsCachedTheSecondTime() async throws {
        let store = try SeaweedServer()
        defer { store.stop() }
        try await store.createBucket("fleet")
        let seen = try await Tools.onWorkerThread { () -> Observed in
            let area = try Area("slurm-run")
            try Data(store.endpoint.utf8).write(to: URL(fileURLWithPath: area.endpointFile))
            let cluster = try SlurmCluster()
            defer { cluster.stop() }
            let out = area.directory + "/cards"
            let first = try Self.submit(cluster, area, run: "first", out: out, store: store)
            let verified = try Self.finish(cluster, first.verify)
            let verifyLog = (try? String(contentsOfFile: area.directory + "/first-verify.log", encoding: .utf8)) ?? ""
            let tasks = try Self.tasks(first.array).map { try cluster.state(of: $0) }
            let sharded = try Self.manifests(out, run: "first")
            // One process on one machine, its own empty cache.
            let single = area.directory + "/single"
            let environment = [
                "PATH": "/usr/bin:/bin", "HOME": area.directory, "XDG_CACHE_HOME": area.directory + "/single-cache",
            ]
            let whole = try Tools.run(
                InstalledArtifact.binary!, ["render", area.input, "--out", single, "--run", "one", "--quiet"],
                environment: environment)
            let one = try? RunManifest(reading: single + "/runs/one/shard-0-of-1.jsonl")
            // The same run again on fresh nodes.
            let again = area.directory + "/again"
            let second = try Self.submit(cluster, area, run: "second", out: again, store: store)
            let reverified = try Self.finish(cluster, second.verify)
            return Observed(
                verified: verified, verifyLog: verifyLog, tasks: tasks, sharded: sharded,
                merged: FileManager.default.fileExists(atPath: out + "/report.json"), single: whole, one: one,
                reverified: reverified, second: try Self.manifests(again, run: "second"))
        }
        #expect(
            seen.verified.state == "COMPLETED" && seen.verified.exitCode == "0:0", "\(seen.verified): \(seen.verifyLog)"
        )
        #expect(
            seen.verifyLog.contains("9 items in 4 of 4 manifests (8 rendered, 0 cached, 1 rejected)"),
            "\(seen.verifyLog)")
        for (index, task) in seen.tasks.enumerated() {
            #expect(task.state == "COMPLETED" && task.exitCode == "0:0", "task \(index): \(task)")
        }
        #expect(seen.merged, "the verify job merged the run's report")
        // Each key rendered once in the whole run.
        let rendered = seen.sharded.flatMap(\.entries).filter { $0.status == .rendered }
        #expect(rendered.count == 8 && Set(rendered.compactMap(\.key)).count == 8)
        // The same keys and the same bytes as one process.
        #expect(seen.single.status == 0, "\(seen.single.stderr)")
        let one = try #require(seen.one)
        #expect(RunCommandTests.record([one]) == RunCommandTests.record(seen.sharded))
        // The second run: everything from the shared cache, zero renders.
        #expect(seen.reverified.state == "COMPLETED" && seen.reverified.exitCode == "0:0", "\(seen.reverified)")
        let entries = seen.second.flatMap(\.entries)
        #expect(entries.filter { $0.status == .cached }.count == 8)
        #expect(entries.filter { $0.status == .rendered }.isEmpty)
    }

    @Test func aNodeFailureAndAStoreOutageAreRetriedUntilTheRunIsWhole() async throws {
        var store = try SeaweedServer()
        defer { store.stop() }
        try await store.createBucket("fleet")
        let area = try Area("slurm-chaos")
        try Data(store.endpoint.utf8).write(to: URL(fileURLWithPath: area.endpointFile))
        let out = area.directory + "/cards"
        let cluster = try await Tools.onWorkerThread { try SlurmCluster() }
        // Stopped on a worker thread whatever happens (it waits for the node to empty).
        var failure: (any Error)?
        do {
            let firstStore = store
            let (jobs, down) = try await Tools.onWorkerThread { () -> ((array: String, verify: String), Tools.Run) in
                let jobs = try Self.submit(cluster, area, run: "chaos", out: out, store: firstStore, gated: true)
                // Two tasks running (held at the gate); then the node goes down under them.
                try SlurmCluster.waitUntil(seconds: 60) {
                    try Self.tasks(jobs.array).filter { try cluster.state(of: $0).state == "RUNNING" }.count == 2
                }
                let down = try cluster.run(
                    "scontrol", ["update", "nodename=\(cluster.node)", "state=down", "reason=chaos"])
                try SlurmCluster.waitUntil(seconds: 60) {
                    try Self.tasks(jobs.array).filter { try cluster.state(of: $0).restarts >= 1 }.count == 2
                }
                // The store stops too; the node comes back (it may have returned by itself).
                firstStore.stop()
                _ = try cluster.run("scontrol", ["update", "nodename=\(cluster.node)", "state=resume"])
                try Data().write(to: URL(fileURLWithPath: area.gate))
                // Every task now meets a dead store: it writes its cards, exits 75 and requeues
                // itself (and runs again 10 s later), until each has said so in its log.
                try SlurmCluster.waitUntil(seconds: 180) {
                    (0..<Self.shards).allSatisfy { index in
                        let log =
                            (try? String(contentsOfFile: "\(area.directory)/chaos-\(index).log", encoding: .utf8)) ?? ""
                        return log.contains("exited 75; requeueing it")
                    }
                }
                return (jobs, down)
            }
            #expect(down.status == 0, "\(down.stderr)")
            // The store is back (a new one, empty, elsewhere: the tasks read its address at start).
            store = try SeaweedServer()
            try await store.createBucket("fleet")
            try Data(store.endpoint.utf8).write(to: URL(fileURLWithPath: area.endpointFile))
            let (verified, tasks) = try await Tools.onWorkerThread {
                let verified = try Self.finish(cluster, jobs.verify)
                return (verified, try Self.tasks(jobs.array).map { try cluster.state(of: $0) })
            }
            let verifyLog = (try? String(contentsOfFile: area.directory + "/chaos-verify.log", encoding: .utf8)) ?? ""
            #expect(verified.state == "COMPLETED" && verified.exitCode == "0:0", "\(verified): \(verifyLog)")
            #expect(verifyLog.contains("9 items in 4 of 4 manifests"), "\(verifyLog)")
            var logs = ""
            for (index, state) in tasks.enumerated() {
                logs += (try? String(contentsOfFile: area.directory + "/chaos-\(index).log", encoding: .utf8)) ?? ""
                #expect(state.state == "COMPLETED" && state.restarts >= 1, "task \(index): \(state)")
            }
            #expect(logs.contains("NODE FAILURE"), "\(logs)")
            #expect(logs.contains("Exiting 75"), "\(logs)")
            #expect(logs.contains("exited 75; requeueing it"), "\(logs)")
            #expect(!logs.contains(store.secretKey), "the secret is never logged")
        } catch {
            failure = error
        }
        try await Tools.onWorkerThread { cluster.stop() }
        if let failure { throw failure }
    }
}
