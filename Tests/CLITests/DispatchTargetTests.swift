import Foundation
import TestSupport
import Testing

/// Two nodes of one fleet, one with AVX2 and one without, write the same bytes: the binary
/// run as a CPU without SIMD would (our kernels' baseline, `CARDRENDER_KERNELS=baseline`,
/// and libjpeg-turbo's C code, `JSIMD_FORCENONE=1`) against the same binary as it is.
@Suite(.libvips, .enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
struct DispatchTargetTests {
    /// The files `render` and `thumb` write for two corpus photos, by name, in one environment.
    static func outputs(_ extra: [String: String]) throws -> [String: Data] {
        let directory = try Fixtures.scratchDirectory()
        let input = directory + "/in"
        try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
        for photo in ["photos/jolla-3264x2448.jpg", "orientation/Portrait_6.jpg"] {
            try FileManager.default.copyItem(
                atPath: Fixtures.photo(photo), toPath: input + "/" + URL(fileURLWithPath: photo).lastPathComponent)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = directory + "/cache"
        environment.merge(extra) { $1 }
        let render = try Tools.run(
            Tools.cardrender,
            [
                "render", input, "--out", directory + "/cards", "--frame", "travel/airmail", "--effect", "vintage",
                "--quiet",
            ],
            environment: environment)
        #expect(render.status == 0, "\(render.stderr)")
        let thumb = try Tools.run(
            Tools.cardrender, ["thumb", input, "--width", "200", "--out", directory + "/thumbs"],
            environment: environment)
        #expect(thumb.status == 0, "\(thumb.stderr)")
        var files: [String: Data] = [:]
        for folder in ["cards", "thumbs"] {
            let root = directory + "/" + folder
            for case let name as String in FileManager.default.enumerator(atPath: root)!
            where name.hasSuffix(".jpg") || name.hasSuffix(".png") {
                files[folder + "/" + name] = try Data(contentsOf: URL(fileURLWithPath: root + "/" + name))
            }
        }
        return files
    }

    @Test("render and thumb write the same bytes with and without SIMD")
    func sameBytesWithoutSIMD() async throws {
        let (vector, plain) = try await Tools.onWorkerThread {
            (try Self.outputs([:]), try Self.outputs(["CARDRENDER_KERNELS": "baseline", "JSIMD_FORCENONE": "1"]))
        }
        #expect(vector.count >= 8, "\(vector.keys.sorted())")
        #expect(Set(vector.keys) == Set(plain.keys))
        for (name, bytes) in vector { #expect(plain[name] == bytes, "\(name) differs without SIMD") }
    }
}
