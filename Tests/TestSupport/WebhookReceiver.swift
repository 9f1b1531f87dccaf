import Foundation

/// `Tests/webhooks/receiver.py` running on 127.0.0.1: a receiver that verifies every message
/// with Standard Webhooks' own Python library (installed by `scripts/setup-tests.sh` into
/// `.build/services/standardwebhooks`), answers as its mode file says, and logs each request.
public final class WebhookReceiver: Sendable {
    /// The Python that has the library, or nil when it is not installed.
    public static let python: String? = {
        let path = Fixtures.root.path + "/.build/services/standardwebhooks/bin/python"
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()
    /// Why the webhook tests cannot run here.
    public static let missing =
        "the Standard Webhooks reference is not installed (scripts/setup-tests.sh installs it): the webhook tests skipped"

    public let port: Int
    let directory: String
    let process: StoppableProcess

    /// Its URL for events.
    public var url: String { "http://127.0.0.1:\(port)/events" }

    /// Starts a receiver in `directory` (its secrets, mode and log files), on `port` (0: any).
    public init(directory: String, port: Int = 0) throws {
        guard let python = Self.python else { throw Tools.ToolError(message: Self.missing) }
        self.directory = directory
        let output = directory + "/receiver-\(port).out"
        process = try StoppableProcess(
            python,
            [
                Fixtures.root.path + "/Tests/webhooks/receiver.py", String(port), directory + "/secrets",
                directory + "/mode", directory + "/log.jsonl",
            ], output: output)
        var found: Int?
        _ = Poll.blockingUntil(seconds: 30) {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            found = text.split(separator: "\n").first.flatMap { Int($0) }
            return found != nil
        }
        guard let found else {
            process.kill()
            throw Tools.ToolError(message: "the webhook receiver did not start: \(output)")
        }
        self.port = found
    }

    /// Stops it (SIGKILL): its port refuses connections until another starts there.
    public func stop() { process.kill() }

    /// The secrets it verifies with.
    public func trust(_ secrets: [String]) throws {
        try secrets.joined(separator: "\n").write(toFile: directory + "/secrets", atomically: true, encoding: .utf8)
    }

    /// How it answers from now on: `ok`, `500` or `slow SECONDS`.
    public func answer(_ mode: String) throws {
        try mode.write(toFile: directory + "/mode", atomically: true, encoding: .utf8)
    }

    /// Every request it got, in order.
    public func requests() -> [[String: Any]] {
        let text = (try? String(contentsOfFile: directory + "/log.jsonl", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    deinit { process.kill() }
}
