import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The service checked against its own contract: schemathesis (PyPI, installed by
/// `scripts/setup-tests.sh` under `.build/services/schemathesis`) reads `/v1/openapi.json`
/// from a live `cardrender serve --data` and sends every operation generated requests,
/// valid and not, with a real key, after a real photo and order exist (the generated specs
/// name photos that are not the key's, so they meet the refusals; the order's cards are
/// reached through the document's links from the list): no answer may be a 5xx, and every
/// answer must be one the document declares (status, content type, headers, body schema).
@Suite(
    .serialized, .libvips,
    .enabled(if: FileManager.default.isExecutableFile(atPath: Schemathesis.binary), Schemathesis.missing),
    .enabled(if: FileManager.default.fileExists(atPath: ServiceAPITests.photo), "../shared/corpus is absent"))
struct SchemathesisTests {
    @Test func everyAnswerConformsAndNoneIs5xx() async throws {
        let directory = try Fixtures.scratchDirectory("schemathesis")
        let data = directory + "/data"
        let created = try Tools.run(Tools.cardrender, ["keys", "create", "schemathesis", "--data", data])
        try #require(created.status == 0, "\(created.stderr)")
        let key = created.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        let log = directory + "/serve.log"
        let server = try StoppableProcess(
            Tools.cardrender,
            ["serve", "--data", data, "--port", "0", "--rate-limit", "100000", "--cache", directory + "/cache"],
            environment: ["XDG_CACHE_HOME": directory + "/xdg"], output: log)
        defer { server.kill() }
        var port: Int?
        _ = await Poll.until(seconds: 120) {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.range(of: "on http://127.0.0.1:") {
                port = Int(text[range.upperBound...].prefix { $0.isNumber })
            }
            return port != nil
        }
        let base = "http://127.0.0.1:\(try #require(port, "serve did not start"))"
        // A real photo and order, so that generated requests can also meet existing ids.
        let upload = try Tools.run(
            "/usr/bin/curl",
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Authorization: Bearer \(key)",
                "-H", "Content-Type: application/octet-stream", "--data-binary", "@" + ServiceAPITests.photo,
                base + "/v1/photos",
            ])
        #expect(upload.stdoutText == "201")
        let digest = try Tools.run("/usr/bin/sha256sum", [ServiceAPITests.photo]).stdoutText.prefix(64)
        let order = #"{"spec": \#(ServiceAPITests.spec(photo: String(digest), recipients: 2))}"#
        let placed = try Tools.run(
            "/usr/bin/curl",
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Authorization: Bearer \(key)",
                "-H", "Content-Type: application/json", "--data-binary", order, base + "/v1/cards",
            ])
        #expect(placed.stdoutText == "202")
        let run = try await Tools.onWorkerThread {
            try Tools.run(
                Schemathesis.binary,
                [
                    "run", base + "/v1/openapi.json", "--url", base, "-H", "Authorization: Bearer \(key)",
                    "--checks",
                    "not_a_server_error,status_code_conformance,content_type_conformance,"
                        + "response_schema_conformance,response_headers_conformance",
                    "--max-examples", "25", "--seed", "29", "--no-color", "--request-timeout", "60",
                ], environment: ["HOME": directory, "PATH": "/usr/bin:/bin", "SCHEMATHESIS_HOOKS": ""])
        }
        let output = run.stdoutText + run.stderr
        #expect(run.status == 0, "\(output.suffix(6000))")
        #expect(output.contains(" passed"), "\(output.suffix(2000))")
        #expect(!output.contains("Server error"), "\(output.suffix(6000))")
    }
}

/// Where schemathesis is installed.
enum Schemathesis {
    static let binary = Fixtures.root.path + "/.build/services/schemathesis/bin/st"
    static let missing: Comment =
        "schemathesis is not installed (.build/services/schemathesis): run `bash scripts/setup-tests.sh`"
}
