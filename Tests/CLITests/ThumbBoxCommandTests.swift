import Foundation
import ImageCore
import TestSupport
import Testing
import VipsKit

/// `cardrender thumb` with a box, placeholders and animations, and `cardrender sign --expires`:
/// the server's parameter set on the command line.
@Suite(.libvips) struct ThumbBoxCommandTests {
    private func cardrender(_ arguments: String...) throws -> Tools.Run {
        try ThumbCommandTests.run(arguments)
    }

    @Test func aBoxAPlaceholderAndAnAnimation() throws {
        let directory = try Fixtures.scratchDirectory()
        try Synthetic.quadrants(directory + "/q.png", width: 64, height: 48)
        let cover = try cardrender(
            "thumb", directory + "/q.png", "--width", "30", "--height", "30", "--fit", "cover", "--gravity", "west",
            "-o", directory + "/cover.png")
        #expect(cover.status == 0, "\(cover.stderr)")
        #expect(cover.stdoutText.contains("30x30"))
        let image = try Fixtures.load(directory + "/cover.png")
        // West keeps the left quadrants: red on top (220, 30, 30).
        let red = try image.pixel(x: 3, y: 3)
        #expect(image.width == 30 && abs(red[0] - 220) < 6 && abs(red[1] - 30) < 6)
        let hash = try cardrender(
            "thumb", directory + "/q.png", "--width", "32", "--placeholder", "thumbhash", "-o", directory + "/q.json")
        #expect(hash.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/q.json")))
        #expect((json as? [String: Any])?["width"] as? Int == 32)
        let gif = Fixtures.root.path + "/Tests/animated/rotating-squares.gif"
        let animated = try cardrender(
            "thumb", gif, "--width", "40", "--format", "webp", "--max-frames", "4", "-o", directory + "/a.webp")
        #expect(animated.status == 0 && animated.stdoutText.contains("(4 of 30 frames)"))
        let batch = try cardrender(
            "thumb", directory + "/q.png", "--height", "24", "--placeholder", "blur", "--out", directory + "/out")
        #expect(batch.status == 0 && FileManager.default.fileExists(atPath: directory + "/out/q.jpg"))
        // The server's checks and messages.
        let bad = try cardrender("thumb", directory + "/q.png", "--width", "30", "--fit", "squash", "-o", "-")
        #expect(bad.status == 64 && bad.stderr.contains("--fit: expected cover, contain, inside or fill"))
    }

    @Test func signExpiresPutsExpUnderTheSignature() throws {
        let directory = try Fixtures.scratchDirectory()
        let keyFile = directory + "/key"
        try Data(String(repeating: "k", count: 40).utf8).write(to: URL(fileURLWithPath: keyFile))
        let before = Int(Date().timeIntervalSince1970)
        let run = try cardrender(
            "sign", "/thumb/a.jpg?width=200", "--signing-key-file", keyFile, "--expires", "3600")
        let after = Int(Date().timeIntervalSince1970)
        #expect(run.status == 0)
        let url = run.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        let exp = url.split(separator: "&").first { $0.hasPrefix("exp=") }.flatMap { Int($0.dropFirst(4)) } ?? 0
        #expect((before + 3600...after + 3600).contains(exp))
        #expect(url.contains("&exp=\(exp)&sig="))
        #expect(try cardrender("sign", "/thumb/a.jpg", "--signing-key-file", keyFile, "--expires", "0").status == 64)
    }
}
