import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `deploy/systemd/cardrender-serve@.service` without systemd (this machine has none): the
/// unit parses, names only directives we mean, and its `ExecStart`, expanded as systemd
/// would (`%i`, `%C`, `${VAR}` from the environment file), starts a server that answers
/// and exits 0 on the unit's `KillSignal`.
@Suite(.libvips) struct SystemdUnitTests {
    static let path = Fixtures.root.appendingPathComponent("deploy/systemd/cardrender-serve@.service").path

    /// Section -> [(key, value)], in file order; comments and blank lines dropped.
    static func parse(_ text: String) throws -> [String: [(key: String, value: String)]] {
        var sections: [String: [(key: String, value: String)]] = [:]
        var current: String?
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                current = String(line.dropFirst().dropLast())
                continue
            }
            guard let section = current, let equals = line.firstIndex(of: "=") else {
                throw Tools.ToolError(message: "\(path):\(number + 1): not 'Key=value' inside a section: \(line)")
            }
            sections[section, default: []].append(
                (
                    String(line[..<equals]).trimmingCharacters(in: .whitespaces),
                    String(line[line.index(after: equals)...])
                ))
        }
        return sections
    }

    @Test func theUnitParsesAndItsExecStartServesAndStopsCleanly() async throws {
        let sections = try Self.parse(String(contentsOfFile: Self.path, encoding: .utf8))
        #expect(Set(sections.keys) == ["Unit", "Service", "Install"])
        let known: [String: Set<String>] = [
            "Unit": ["Description", "After", "Wants"],
            "Service": [
                "Type", "EnvironmentFile", "CacheDirectory", "Environment", "ExecStart", "KillSignal", "TimeoutStopSec",
                "Restart", "RestartSec", "DynamicUser", "NoNewPrivileges", "ProtectSystem", "ProtectHome",
                "PrivateTmp", "PrivateDevices", "LimitNOFILE",
            ],
            "Install": ["WantedBy"],
        ]
        for (section, entries) in sections {
            for entry in entries {
                #expect(known[section]?.contains(entry.key) == true, "[\(section)] \(entry.key) is not expected")
            }
        }
        let service = Dictionary(sections["Service"] ?? [], uniquingKeysWith: { first, _ in first })
        #expect(service["KillSignal"] == "SIGTERM")
        #expect(service["Type"] == "exec")
        let exec = try #require(service["ExecStart"])
        #expect(exec.hasPrefix("/usr/bin/cardrender serve "), "the .deb's path")
        #expect(!exec.contains("AWS_SECRET"), "no credential on the command line")

        // Expand as systemd does, with this machine's paths.
        let port = try SeaweedServer.freePorts(1)[0]
        let scratch = try Fixtures.scratchDirectory("systemd")
        let root = scratch + "/photos"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Synthetic.quadrants(root + "/q.png", width: 200, height: 100)
        let environmentFile = ["CARDRENDER_ROOT": root, "CARDRENDER_CACHE": scratch + "/cache"]
        func expand(_ text: String) -> String {
            var text = text.replacingOccurrences(of: "%i", with: String(port))
                .replacingOccurrences(of: "%C", with: scratch + "/var-cache")
            for (name, value) in environmentFile { text = text.replacingOccurrences(of: "${\(name)}", with: value) }
            return text
        }
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in sections["Service"] ?? [] where key == "Environment" {
            let parts = expand(value).split(separator: "=", maxSplits: 1).map(String.init)
            environment[parts[0]] = parts[1]
        }
        let words = expand(exec).split(separator: " ").map(String.init)
        #expect(!words.contains { $0.contains("${") || $0.contains("%") }, "everything expanded: \(words)")
        let log = scratch + "/stderr.log"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Tools.cardrender)
        process.arguments = Array(words.dropFirst())
        process.environment = environment
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        let healthy = await Poll.until(seconds: 120, every: .milliseconds(50)) {
            let request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/healthz")
            return (try? await HTTPClient.shared.execute(request, timeout: .seconds(10)))?.status.code == 200
        }
        #expect(healthy, "\((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        let thumb = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(port)/thumb/q.png?width=50"), timeout: .seconds(600))
        #expect(thumb.status.code == 200)
        _ = try await thumb.body.collect(upTo: 1 << 20)

        kill(process.processIdentifier, SIGTERM)
        let stopSeconds = Int(service["TimeoutStopSec"] ?? "") ?? 0
        #expect(stopSeconds >= 10)
        let exited = try await Tools.onWorkerThread { () -> Bool in
            Poll.blockingUntil(seconds: Double(stopSeconds)) { !process.isRunning }
        }
        #expect(exited, "stopped within TimeoutStopSec")
        if exited { #expect(process.terminationStatus == 0) }
    }
}
