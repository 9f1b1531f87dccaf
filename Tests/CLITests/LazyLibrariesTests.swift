import Foundation
import TestSupport
import Testing

/// A process whose work takes the fast path never loads libvips, GLib or Pango (they are
/// opened on first use, not linked), and one whose work needs libvips says so clearly when
/// it cannot be opened. The dynamic loader itself reports what it loaded (`LD_DEBUG=libs`),
/// and `CARDRENDER_LIBVIPS` points cardrender at a libvips that does not exist.
@Suite(.libvips, .enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
struct LazyLibrariesTests {
    /// Libraries that must stay closed on the fast path.
    static let heavy = [
        "libvips", "libglib", "libgobject", "libpango", "libcairo", "libfontconfig", "libheif", "libqpdf",
        "libopencv",
    ]

    /// A libvips that cannot be opened.
    static let missing = ["CARDRENDER_LIBVIPS": "/nonexistent/libvips.so.42"]

    /// Runs cardrender in `directory` with `extra` in its environment.
    static func run(_ arguments: [String], _ extra: [String: String] = [:]) throws -> Tools.Run {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(extra) { $1 }
        return try Tools.run(Tools.cardrender, arguments, environment: environment)
    }

    /// The files the dynamic loader initialised in a run (`LD_DEBUG=libs` on stderr).
    static func loaded(_ run: Tools.Run) -> [String] {
        run.stderr.split(separator: "\n").compactMap { line in
            line.range(of: "calling init: ").map { String(line[$0.upperBound...]) }
        }
    }

    @Test("--version loads libjpeg and libpng but none of libvips, GLib or Pango")
    func versionLoadsNoHeavyLibrary() async throws {
        let result = try await Tools.onWorkerThread { try Self.run(["--version"], ["LD_DEBUG": "libs"]) }
        #expect(result.status == 0)
        let files = Self.loaded(result)
        #expect(files.contains { $0.contains("libjpeg") }, "\(files)")
        for library in Self.heavy { #expect(!files.contains { $0.contains(library) }, "\(library) in \(files)") }
    }

    @Test("a JPEG thumbnail and a framed card (art cached) render without libvips, same bytes")
    func fastPathRunsWithoutLibvips() async throws {
        let directory = try Fixtures.scratchDirectory()
        let photo = Fixtures.photo("photos/jolla-3264x2448.jpg")
        let (withLibvips, without, traced) = try await Tools.onWorkerThread { () -> ([Data], [Data], Tools.Run) in
            // The frame's art goes into the cache once, by a run that may open libvips.
            let warm = try Self.run([
                "render", Fixtures.photo("orientation/Landscape_1.jpg"), "--out", directory + "/warm",
                "--frame", "travel/airmail", "--quiet", "--cache", directory + "/art",
            ])
            #expect(warm.status == 0, "\(warm.stderr)")
            func outputs(_ label: String, _ extra: [String: String]) throws -> [Data] {
                // A cache holding the art but not this card, so the card is rendered.
                try FileManager.default.copyItem(atPath: directory + "/art", toPath: directory + "/cache-" + label)
                let thumb = try Self.run(
                    ["thumb", photo, "--width", "200", "-o", directory + "/\(label).png", "--no-cache"], extra)
                #expect(thumb.status == 0, "\(label): \(thumb.stderr)")
                let card = try Self.run(
                    [
                        "render", photo, "--out", directory + "/" + label, "--frame", "travel/airmail", "--effect",
                        "sepia", "--quiet", "--cache", directory + "/cache-" + label,
                    ], extra)
                #expect(card.status == 0, "\(label): \(card.stderr)")
                return try ["\(label).png", "\(label)/jolla-3264x2448.print.jpg", "\(label)/jolla-3264x2448.small.png"]
                    .map { try Data(contentsOf: URL(fileURLWithPath: directory + "/" + $0)) }
            }
            let traced = try Self.run(
                ["thumb", photo, "--width", "200", "-o", directory + "/traced.png", "--no-cache"], ["LD_DEBUG": "libs"])
            return (try outputs("with", [:]), try outputs("without", Self.missing), traced)
        }
        #expect(withLibvips.count == 3 && without.count == 3)
        #expect(withLibvips == without, "the fast path wrote other bytes when libvips could not be opened")
        let files = Self.loaded(traced)
        for library in Self.heavy { #expect(!files.contains { $0.contains(library) }, "\(library) in \(files)") }
    }

    @Test("work that needs libvips fails with a message naming it when it cannot be opened; the rest is done")
    func missingLibvipsIsNamed() async throws {
        let directory = try Fixtures.scratchDirectory()
        try Synthetic.quadrants(directory + "/q.png")
        let result = try await Tools.onWorkerThread {
            try Self.run(
                [
                    "thumb", Fixtures.photo("photos/jolla-3264x2448.jpg"), directory + "/q.png", "--width", "200",
                    "--out", directory + "/out", "--no-cache",
                ], Self.missing)
        }
        // An error thrown to the file that needed libvips (exit 1), not an exit from a worker.
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("needs libvips"), "\(result.stderr)")
        #expect(result.stderr.contains("/nonexistent/libvips.so.42"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/out/q.png"))
        // The JPEG, on the fast path, was made all the same.
        #expect(FileManager.default.fileExists(atPath: directory + "/out/jolla-3264x2448.png"))
    }

    @Test("a library that lacks a function is refused when opened, naming the library and the function")
    func aMissingFunctionIsNamed() async throws {
        let directory = try Fixtures.scratchDirectory()
        try Synthetic.quadrants(directory + "/q.png")
        // libpng is a real shared library, and has none of libvips's functions.
        let impostor = ["CARDRENDER_LIBVIPS": "/usr/lib/\(Self.multiarch)/libpng16.so.16"]
        let result = try await Tools.onWorkerThread {
            try Self.run(
                ["thumb", directory + "/q.png", "--width", "20", "-o", directory + "/t.png", "--no-cache"], impostor)
        }
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("libpng16.so.16) has no function vips_"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/t.png"))
    }

    #if arch(arm64)
        static let multiarch = "aarch64-linux-gnu"
    #else
        static let multiarch = "x86_64-linux-gnu"
    #endif
}
