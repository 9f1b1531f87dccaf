import Foundation
import ImageCore
import TestSupport
import Testing
import Thumbnails
import VipsKit

/// `docs/library.md`'s example is this file's `makeThumbnails`, word for word: the build
/// compiles it, the test runs it on a real photo, and a change to either side fails here.
@Suite(.libvips) struct LibraryDocTests {
    @Test func theExampleIsThisCodeAndMakesBothThumbnails() throws {
        let page = try String(contentsOfFile: Fixtures.root.path + "/docs/library.md", encoding: .utf8)
        let blocks = DocPage.swiftBlocks(in: page)
        #expect(blocks.count == 1)
        let example = try #require(blocks.first)
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let imports = example.split(separator: "\n").filter { $0.hasPrefix("import ") }
        for line in imports { #expect(source.contains("\n" + line + "\n"), "\(line) is not imported here") }
        let code = example.split(separator: "\n", omittingEmptySubsequences: false)
            .drop { $0.hasPrefix("import ") || $0.isEmpty }.joined(separator: "\n")
        #expect(source.contains("\n" + code + "\n"), "docs/library.md's example is not this file's makeThumbnails")

        let directory = try Fixtures.scratchDirectory()
        let photo = directory + "/photo.jpg"
        try Tools.vips("black", photo, "640", "480", "--bands", "3")
        let upload = try Data(contentsOf: URL(fileURLWithPath: photo))
        let webp = try makeThumbnails(photo: photo, upload: Array(upload))
        #expect((webp.width, webp.height, webp.mimeType) == (320, 240, "image/webp"))
        let png = try Fixtures.load(photo + ".png")
        #expect((png.width, png.height) == (200, 150))
    }
}

/// A 200 px PNG beside the photo at `path`, and a 320 px WebP of an upload's bytes.
func makeThumbnails(photo path: String, upload: [UInt8]) throws -> Thumbnail {
    Vips.start()  // at the program's entry, before any thread of yours (it sets VIPSHOME;
    // libvips itself is opened by the first call needing it)
    let thumbnailer = Thumbnailer(maxWidth: 4096, policy: DecodePolicy(maxPixels: 50_000_000))
    let thumbnail = try thumbnailer.thumbnail(file: path, width: 200)  // PNG bytes
    try thumbnail.write(to: path + ".png")  // whole or not at all
    return try thumbnailer.thumbnail(
        of: ImageData(copying: upload, name: "upload"), width: 320,
        options: EncodeOptions(format: .webp, quality: 75))
}
