import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A one-node Slurm cluster for tests, from Debian's `slurmctld`, `slurmd`, `slurm-client`
/// and `munge` (installed by `scripts/setup-tests.sh`, never started by the install): `munged`,
/// `slurmctld` and `slurmd` started by the test in the foreground with their state, sockets
/// and logs in a scratch directory, `slurm.conf` with `NodeAddr=127.0.0.1`, Linux process
/// tracking, no task plugin and no accounting, and `cred_expire=10`: a requeued job waits
/// for its credential to expire before it starts again (120 s by default), and starting it
/// sooner by hand (`scontrol update StartTime=now`) races the revocation of its old
/// credential ("Job credential revoked": the task fails with exit 1). Stopped by pid
/// (`stop()`), after its jobs are cancelled.
///
/// Every call blocks: use it from a worker thread (`Tools.onWorkerThread`).
public final class SlurmCluster: Sendable {
    /// Whether the daemons are installed and this process may run them (root).
    public static let available: Bool =
        getuid() == 0
        && ["/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: $0)
        }

    /// Shown when the tests that need it are skipped.
    public static let missing: String =
        "a Slurm cluster needs root and Debian's slurmctld, slurmd, slurm-client and munge: run `bash scripts/setup-tests.sh` as root"

    /// The scratch directory (configuration, state, logs).
    public let directory: String
    /// `slurm.conf`; clients find it through `SLURM_CONF`.
    public let configuration: String
    /// The node's name.
    public let node = "cardrender-node"
    private let daemons: [StoppableProcess]

    /// Starts the three daemons and waits (bounded: 30 s) until the node is idle.
    public init() throws {
        guard Self.available else { throw Tools.ToolError(message: Self.missing) }
        directory = try Fixtures.scratchDirectory("slurm")
        chmod(directory, 0o700)
        for sub in ["state", "spool"] {
            try FileManager.default.createDirectory(atPath: directory + "/" + sub, withIntermediateDirectories: true)
        }
        let key = (0..<1024).map { _ in UInt8.random(in: 0...255) }
        try Data(key).write(to: URL(fileURLWithPath: directory + "/munge.key"))
        chmod(directory + "/munge.key", 0o600)
        let ports = try SeaweedServer.freePorts(2)
        configuration = directory + "/slurm.conf"
        let text = """
            ClusterName=cardrender
            SlurmctldHost=localhost(127.0.0.1)
            SlurmctldPort=\(ports[0])
            SlurmdPort=\(ports[1])
            SlurmUser=root
            SlurmdUser=root
            AuthType=auth/munge
            AuthInfo=socket=\(directory)/munge.socket,cred_expire=10
            CredType=cred/munge
            StateSaveLocation=\(directory)/state
            SlurmdSpoolDir=\(directory)/spool
            SlurmctldPidFile=\(directory)/slurmctld.pid
            SlurmdPidFile=\(directory)/slurmd.pid
            SlurmctldLogFile=\(directory)/slurmctld.log
            SlurmdLogFile=\(directory)/slurmd.log
            ProctrackType=proctrack/linuxproc
            TaskPlugin=task/none
            SchedulerType=sched/builtin
            SelectType=select/cons_tres
            SelectTypeParameters=CR_CPU
            JobAcctGatherType=jobacct_gather/none
            AccountingStorageType=accounting_storage/none
            MpiDefault=none
            ReturnToService=2
            NodeName=\(node) NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=2 RealMemory=1000 State=UNKNOWN
            PartitionName=batch Nodes=\(node) Default=YES MaxTime=INFINITE State=UP

            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: configuration))
        var started: [StoppableProcess] = []
        do {
            started.append(
                try StoppableProcess(
                    "/usr/sbin/munged",
                    [
                        "--foreground", "--force", "--key-file=\(directory)/munge.key",
                        "--socket=\(directory)/munge.socket", "--pid-file=\(directory)/munged.pid",
                        "--log-file=\(directory)/munged.log", "--seed-file=\(directory)/munged.seed",
                    ], output: directory + "/munged.out"))
            let socket = directory + "/munge.socket"
            try Self.waitUntil(seconds: 60) { FileManager.default.fileExists(atPath: socket) }
            started.append(
                try StoppableProcess(
                    "/usr/sbin/slurmctld", ["-D", "-f", configuration], output: directory + "/slurmctld.out"))
            started.append(
                try StoppableProcess(
                    "/usr/sbin/slurmd", ["-D", "-N", node, "-f", configuration], output: directory + "/slurmd.out"))
        } catch {
            started.reversed().forEach { $0.kill() }
            throw error
        }
        daemons = started
        do {
            try Self.waitUntil(seconds: 120) {
                let state = try? self.run("sinfo", ["-h", "-n", self.node, "-o", "%t"])
                return state?.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "idle"
            }
        } catch {
            stop()
            throw Tools.ToolError(message: "the Slurm node never became idle; see \(directory)/slurmctld.log")
        }
    }

    /// Runs a Slurm client (`sbatch`, `squeue`, `scontrol`, ...) against this cluster, with
    /// `environment` added to the test's (`sbatch` passes it on to the job).
    public func run(_ tool: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Tools.Run {
        var variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        variables["SLURM_CONF"] = configuration
        return try Tools.run("/usr/bin/" + tool, arguments, environment: variables)
    }

    /// `sbatch --parsable ARGUMENTS`: the job id.
    public func submit(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let result = try run("sbatch", ["--parsable"] + arguments, environment: environment)
        let id = result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, !id.isEmpty else {
            throw Tools.ToolError(message: "sbatch \(arguments): \(result.stderr)")
        }
        return id
    }

    /// What `scontrol show job` says about one job (or array task, `J_T`).
    public struct JobState: Sendable, Equatable {
        /// `PENDING`, `RUNNING`, `COMPLETED`, `FAILED`, ...
        public var state: String
        /// Why it waits, when pending (`BeginTime`, `Dependency`, ...).
        public var reason: String
        /// `EXIT:SIGNAL` of its last run.
        public var exitCode: String
        /// How many times it was requeued.
        public var restarts: Int
    }

    /// The state of `job` (a job id or an array task `J_T`).
    public func state(of job: String) throws -> JobState {
        let result = try run("scontrol", ["show", "job", "-o", job])
        guard result.status == 0 else { throw Tools.ToolError(message: "scontrol show job \(job): \(result.stderr)") }
        var fields: [String: String] = [:]
        for word in result.stdoutText.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = word.split(separator: "=", maxSplits: 1)
            if parts.count == 2, fields[String(parts[0])] == nil { fields[String(parts[0])] = String(parts[1]) }
        }
        return JobState(
            state: fields["JobState"] ?? "?", reason: fields["Reason"] ?? "?", exitCode: fields["ExitCode"] ?? "?",
            restarts: Int(fields["Restarts"] ?? "") ?? -1)
    }

    /// Whether a job has ended, one way or another.
    public static func isFinished(_ state: JobState) -> Bool {
        ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE"].contains(
            state.state)
    }

    /// Cancels every job, waits (bounded) for the node to be empty, and stops the daemons.
    public func stop() {
        _ = try? run("scancel", ["--full", "--user=root"])
        try? Self.waitUntil(seconds: 20) {
            let queue = try? self.run("squeue", ["-h"])
            return queue?.status == 0 && queue?.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == ""
        }
        for daemon in daemons.reversed() {
            daemon.send(SIGTERM)
            if daemon.wait(upTo: 10) == nil { daemon.kill() }
        }
    }

    /// Polls `condition` every 100 ms until it holds; throws after `seconds`.
    public static func waitUntil(seconds: Double, _ condition: () throws -> Bool) throws {
        if try Poll.blockingUntil(seconds: seconds, every: .milliseconds(100), condition) { return }
        throw Tools.ToolError(message: "not within \(seconds) s")
    }
}
