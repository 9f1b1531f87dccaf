import CardKit
import Foundation
import ImageCore
import RenderCache
import TestSupport
import Testing
import Thumbnails
import VipsKit

@testable import CardPipeline

#if canImport(Glibc)
    import Glibc
#endif

/// The file is read once and the bytes rendered are the bytes hashed into the key.
@Suite(.libvips) struct CachedThumbnailerTests {
    /// A solid image of one grey.
    func solid(_ path: String, _ grey: UInt8) throws {
        try Synthetic.image(path, width: 64, height: 48, bands: 3) { _, _ in [grey, grey, grey] }
    }

    /// Sets a file's modification time back to `seconds`, so that its stamp matches an older one.
    func setModified(_ path: String, _ seconds: Int) {
        var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    func centreGrey(_ thumbnail: Thumbnail) throws -> Double {
        try Fixtures.load(thumbnail.data).pixel(x: thumbnail.width / 2, y: thumbnail.height / 2)[0]
    }

    @Test func theKeyIsMadeFromTheBytesThatAreRendered() throws {
        let directory = try Fixtures.scratchDirectory()
        let cache = try ContentStore(directory: directory + "/cache")
        let thumbnailer = CachedThumbnailer(thumbnailer: Thumbnailer(), cache: cache)
        let path = directory + "/photo.tif"  // uncompressed: same size whatever the colour
        try solid(path, 40)
        setModified(path, 1_000_000)
        let first = try thumbnailer.thumbnail(file: path, width: 32)
        let dark = try centreGrey(first.thumbnail)
        #expect(!first.cached && abs(dark - 40) < 2)
        let darkKey = try #require(first.key)

        // Replaced by other content of the same size with the old stamp restored: the memo
        // (which trusts stamps, as README says) still names the old digest.
        let sizeBefore = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        try solid(path, 200)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == sizeBefore)
        setModified(path, 1_000_000)

        // A miss reads the bytes, hashes them, and keys the render by what it read.
        let second = try thumbnailer.thumbnail(file: path, width: 33)
        #expect(!second.cached)
        #expect(abs(try centreGrey(second.thumbnail) - 200) < 2)
        let digest = ContentDigest.of(try Data(contentsOf: URL(fileURLWithPath: path)))
        let expected = try thumbnailer.key(inputDigest: digest, width: 33, enlarge: false, options: EncodeOptions())
        #expect(second.key == expected)
        #expect(cache.entries.entry(for: expected) != nil)
        // And the memo now holds the digest of the bytes read, so the light picture's key
        // at width 32 is not the dark one's.
        let third = try thumbnailer.thumbnail(file: path, width: 32)
        let light = try centreGrey(third.thumbnail)
        #expect(third.key != darkKey && abs(light - 200) < 2)
    }

    @Test func withoutACacheNothingIsWrittenAndNoKeyIsMade() throws {
        let directory = try Fixtures.scratchDirectory()
        try solid(directory + "/p.tif", 90)
        let made = try CachedThumbnailer(thumbnailer: Thumbnailer(), cache: nil).thumbnail(
            file: directory + "/p.tif", width: 20)
        #expect(made.key == nil && !made.cached && made.thumbnail.width == 20)
        #expect(Fixtures.files(under: directory) == ["p.tif"])
    }
}
