import CardKit
import CardPipeline
import FileUtilities
import Foundation
import SystemPackage
import TestSupport
import Testing
import ThumbServer
import Thumbnails

/// The root opens a file once, beneath itself, and that descriptor is what is read: a
/// symbolic link swapped in after the check cannot be followed.
@Suite(.libvips) struct RootDirectoryTests {
    @Test func theFileCheckedIsTheFileRead() throws {
        let root = try Fixtures.scratchDirectory(), outside = try Fixtures.scratchDirectory()
        try Synthetic.quadrants(root + "/a.jpg", width: 64, height: 48)
        try Synthetic.quadrants(outside + "/secret.jpg", width: 100, height: 40)
        let directory = try RootDirectory(root)
        let file = try directory.file(atURLPath: "a.jpg")
        // After the check, the name becomes a link leading out of the root.
        try FileManager.default.removeItem(atPath: root + "/a.jpg")
        try FileManager.default.createSymbolicLink(
            atPath: root + "/a.jpg", withDestinationPath: outside + "/secret.jpg")
        let thumbnailer = CachedThumbnailer(thumbnailer: Thumbnailer(maxWidth: 4096), cache: nil)
        let made = try thumbnailer.thumbnail(
            file: file.path, open: { _ in try file.opened.descriptor.duplicate() }, width: 500)
        #expect(made.thumbnail.width == 64 && made.thumbnail.height == 48)
        // Asked again, the link is refused; a link that stays inside is followed.
        #expect(throws: ThumbRequestError.notFound) { try directory.file(atURLPath: "a.jpg") }
        try Synthetic.quadrants(root + "/b.jpg")
        try FileManager.default.createDirectory(atPath: root + "/sub", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/sub/c.jpg", withDestinationPath: "../b.jpg")
        #expect(try directory.file(atURLPath: "sub/c.jpg").path.hasSuffix("/sub/c.jpg"))
        // A FIFO cannot hang a worker: it is not a regular file.
        #expect(mkfifo(root + "/pipe.jpg", 0o600) == 0)
        #expect(throws: ThumbRequestError.notFound) { try directory.file(atURLPath: "pipe.jpg") }
    }
}
