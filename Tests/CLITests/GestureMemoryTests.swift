import Foundation
import TestSupport
import Testing

/// Memory is bounded by the output, not by the gesture: a card zoomed twentyfold, turned, or
/// pushed out of its window costs what its window costs, in both executors. Peak RSS of the
/// whole `cardrender render` process, read by python's `getrusage(RUSAGE_CHILDREN)`.
@Suite(.libvips, .enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
struct GestureMemoryTests {
    static let limit = 300 << 20

    /// The peak resident bytes of `cardrender` run with `arguments`, and its exit status.
    static func peak(_ arguments: [String]) throws -> (bytes: Int, status: Int32, stderr: String) {
        let script = """
            import resource, subprocess, sys
            run = subprocess.run(sys.argv[1:], capture_output=True, text=True)
            sys.stderr.write(run.stderr)
            print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, run.returncode)
            """
        let run = try Tools.run("/usr/bin/env", ["python3", "-c", script, Tools.cardrender] + arguments)
        let fields = String(decoding: run.stdout, as: UTF8.self).split(separator: " ")
        let kilobytes = Int(fields.first ?? "") ?? -1
        let status = Int32(fields.last?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? -1
        return (kilobytes * 1024, status, run.stderr)
    }

    @Test(
        "a twentyfold zoom, a turn or a far drag costs at most 300 MiB in either executor",
        arguments: [
            ("photos/iphone13-3024x4032.heic", #"{"version": 1, "transform": {"scale": 20}}"#),
            ("photos/phone-4032x3024.jpg", #"{"version": 1, "transform": {"scale": 20}}"#),
            (
                "photos/phone-4032x3024.jpg",
                #"{"version": 1, "card": {"size": "6x9in"}, "transform": {"scale": 12, "rotation": -90}}"#
            ),
            (
                "photos/jolla-3264x2448.jpg",
                #"{"version": 1, "transform": {"scale": 20, "rotation": 33, "offset": {"x": 0.4, "y": -0.3}}}"#
            ),
            ("photos/jolla-3264x2448.jpg", #"{"version": 1, "transform": {"offset": {"y": 1.5}}}"#),
        ])
    func boundedPeak(photo: String, spec: String) throws {
        let directory = try Fixtures.scratchDirectory("gesture")
        try FileManager.default.createDirectory(atPath: directory + "/in", withIntermediateDirectories: true)
        let name = "card." + (photo as NSString).pathExtension
        try FileManager.default.copyItem(atPath: Fixtures.photo(photo), toPath: directory + "/in/" + name)
        try Data(spec.utf8).write(to: URL(fileURLWithPath: directory + "/in/card.card.json"))
        for engine in ["auto", "general"] {
            let out = directory + "/out-" + engine
            let run = try Self.peak([
                "render", directory + "/in", "--out", out, "--no-cache", "--engine", engine, "--quiet",
            ])
            #expect(run.status == 0, "\(engine): \(run.stderr)")
            #expect(
                run.bytes > 0 && run.bytes <= Self.limit, "\(photo) \(spec) --engine \(engine): \(run.bytes >> 20) MiB")
            #expect(FileManager.default.fileExists(atPath: out + "/card.print.jpg"))
        }
    }
}
