import Foundation
import TestSupport
import Testing
import VipsKit

/// Errors are classified by what they are: damaged input is the input's (exit 1 with
/// "damaged", a warning under `--lenient`); an encoder failure is cardrender's, never
/// called damaged and never retried.
@Suite(.libvips) struct ErrorClassTests {
    /// `wide.png` (16384 x 2: WebP's limit is 16383) and `broken.jpg` (truncated).
    static func inputs() throws -> String {
        let directory = try Fixtures.scratchDirectory("inputs")
        try Tools.vips("black", directory + "/wide.png", "16384", "2", "--bands", "3")
        try Tools.vips("black", directory + "/whole.jpg", "300", "200", "--bands", "3")
        let whole = try Data(contentsOf: URL(fileURLWithPath: directory + "/whole.jpg"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: directory + "/broken.jpg"))
        return directory
    }

    @Test func anEncoderFailureIsNotDamagedInputAndIsNotRetried() throws {
        let directory = try Self.inputs()
        for lenient in [false, true] {
            let run = try Tools.run(
                Tools.cardrender,
                [
                    "thumb", directory + "/wide.png", "--width", "16384", "--max-width", "16384", "--format", "webp",
                    "-o", directory + "/wide.webp", "--no-cache",
                ] + (lenient ? ["--lenient"] : []))
            #expect(run.status == 1)
            #expect(run.stderr.contains("wide.png: libvips webpsave_buffer failed"), "\(run.stderr)")
            #expect(!run.stderr.contains("damaged"), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory + "/wide.webp"))
        }
    }

    @Test func aTruncatedInputIsDamagedOrRenderedWithAWarning() throws {
        let directory = try Self.inputs()
        let strict = try Tools.run(
            Tools.cardrender,
            ["thumb", directory + "/broken.jpg", "--width", "100", "-o", directory + "/b.png", "--no-cache"])
        #expect(strict.status == 1)
        #expect(strict.stderr.contains("broken.jpg: the image data is damaged"), "\(strict.stderr)")
        let lenient = try Tools.run(
            Tools.cardrender,
            [
                "thumb", directory + "/broken.jpg", "--width", "100", "-o", directory + "/b.png", "--no-cache",
                "--lenient",
            ])
        #expect(lenient.status == 0, "\(lenient.stderr)")
        #expect(lenient.stderr.contains("warning") && lenient.stderr.contains("damaged image data"))
        #expect(try Fixtures.load(directory + "/b.png").width == 100)
    }
}
