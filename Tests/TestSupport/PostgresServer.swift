import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real PostgreSQL for tests: Debian's `postgresql-15` server binaries (installed by
/// `scripts/setup-tests.sh`), a cluster made with `initdb` in a scratch directory, run as
/// the `postgres` user (the server refuses root) on 127.0.0.1 and a free port, trusting
/// local connections. One per test process, started on first use; each test makes its own
/// database (`createDatabase`). Stopped by pid when the process ends.
public final class PostgresServer: Sendable {
    /// The server binaries' directory, when installed.
    public static let binaries: String? = {
        let path = "/usr/lib/postgresql/15/bin"
        return FileManager.default.isExecutableFile(atPath: path + "/postgres") ? path : nil
    }()

    /// Shown when the tests that need it are skipped.
    public static let missing: Testing.Comment =
        "PostgreSQL 15 is not installed (/usr/lib/postgresql/15/bin): run `bash scripts/setup-tests.sh`"

    /// The port it listens on (127.0.0.1).
    public let port: Int
    /// Its scratch directory (the cluster, the socket, the log).
    public let directory: String
    private let process: StoppableProcess

    /// The shared server, started on first use and stopped when the test process exits.
    public static func shared() throws -> PostgresServer {
        try started.withLock { server in
            if let server { return server }
            let new = try PostgresServer(listen: "127.0.0.1")
            server = new
            atexit { PostgresServer.stopShared() }
            return new
        }
    }

    /// Stops the shared server (at exit).
    private static func stopShared() {
        started.withLock { $0?.stop() }
    }
    private static let started = Mutex<PostgresServer?>(nil)

    /// Starts a cluster listening on `listen` (comma-separated addresses) and waits until
    /// it answers (bounded: 30 s).
    /// - Parameter trusting: a network (CIDR) whose clients connect without a password,
    ///   besides 127.0.0.1 (a test network's nodes).
    public init(listen: String, trusting network: String? = nil) throws {
        guard let binaries = Self.binaries else { throw Tools.ToolError(message: "\(Self.missing)") }
        directory = try Fixtures.scratchDirectory("postgres")
        let data = directory + "/data"
        try Tools.run("/usr/bin/chown", ["postgres:postgres", directory])
        let initdb = try Tools.run(
            "/usr/sbin/runuser",
            ["-u", "postgres", "--", binaries + "/initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"])
        guard initdb.status == 0 else { throw Tools.ToolError(message: "initdb failed: \(initdb.stderr)") }
        if let network {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: data + "/pg_hba.conf"))
            handle.seekToEndOfFile()
            handle.write(Data("host all all \(network) trust\n".utf8))
            try handle.close()
        }
        port = try SeaweedServer.freePorts(1)[0]
        process = try StoppableProcess(
            "/usr/sbin/runuser",
            [
                "-u", "postgres", "--", binaries + "/postgres", "-D", data, "-p", String(port), "-k", directory,
                "-c", "listen_addresses=\(listen)", "-c", "fsync=off", "-c", "max_connections=200",
            ], output: directory + "/postgres.log")
        if Poll.blockingUntil(
            seconds: 120, every: .milliseconds(100), { (try? psql("SELECT 1"))?.contains("1") == true })
        {
            return
        }
        process.kill()
        throw Tools.ToolError(message: "PostgreSQL did not start in 120 s; see \(directory)/postgres.log")
    }

    /// Stops the server: SIGINT to the postmaster itself (its fast shutdown; `runuser`
    /// above it passes no signal on), then the wait for `runuser` to end.
    public func stop() {
        let pidFile = (try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8)) ?? ""
        if let postmaster = pidFile.split(separator: "\n").first.flatMap({ pid_t($0) }) {
            _ = Glibc.kill(postmaster, SIGINT)
        }
        if process.wait(upTo: 30) == nil { process.kill() }
    }

    /// Runs `sql` with psql in `database` and returns its unaligned output.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        let run = try Tools.run(
            "/usr/bin/psql",
            [
                "-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", database, "-At", "-v", "ON_ERROR_STOP=1",
                "-c", sql,
            ])
        guard run.status == 0 else { throw Tools.ToolError(message: "psql: \(run.stderr)") }
        return String(decoding: run.stdout, as: UTF8.self)
    }

    /// A new, empty database; returns its URL for `--database` (host `host`).
    public func createDatabase(host: String = "127.0.0.1") throws -> String {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try psql("CREATE DATABASE \(name)")
        return "postgres://postgres@\(host):\(port)/\(name)"
    }
}
