import CardKit
import FastPath
import Foundation
import ImageCore
import PhotoSources
import TestSupport
import Testing
import Thumbnails

/// `DecodedPhotos`: another width of a photo decoded at the same DCT scale starts from the
/// kept decode and gives the bytes a fresh decode gives; bounded; keyed by content.
@Suite(.libvips) struct DecodedPhotosTests {
    @Test func anotherWidthAtTheSameScaleReusesTheDecodeForTheSameBytes() throws {
        let photo = ImageData(copying: try FastPathDamageTests.photo(800, 600), name: "photo.jpg")
        let digest = "digest-of-photo"  // any text that names these bytes: the caller's content digest
        let photos = DecodedPhotos(capacity: 8 << 20)
        let remembering = Thumbnailer(decodedPhotos: photos)
        let plain = Thumbnailer()
        // 90 and 95 px both decode at 1/4 (200 px, at least twice the width).
        let first = try remembering.thumbnail(of: photo, width: 90, digest: digest)
        #expect(photos.hits == 0 && photos.bytes == 200 * 150 * 3)
        let second = try remembering.thumbnail(of: photo, width: 95, digest: digest)
        #expect(photos.hits == 1, "the second width started from the kept decode")
        #expect(first.path == .fast && second.path == .fast)
        #expect(first.data == (try plain.thumbnail(of: photo, width: 90)).data)
        #expect(second.data == (try plain.thumbnail(of: photo, width: 95)).data, "the same bytes as a fresh decode")
        // Without the digest, or for other bytes, nothing is shared.
        _ = try remembering.thumbnail(of: photo, width: 96)
        let other = ImageData(copying: try FastPathDamageTests.photo(800, 601), name: "other.jpg")
        let otherDigest = "digest-of-other"
        let made = try remembering.thumbnail(of: other, width: 95, digest: otherDigest)
        #expect(photos.hits == 1 && made.height == 71)
        #expect(made.data == (try plain.thumbnail(of: other, width: 95)).data)
    }

    @Test func aDamagedPhotosWarningComesWithEveryWidth() throws {
        let whole = try FastPathDamageTests.photo(800, 600)
        let truncated = ImageData(copying: whole.prefix(whole.count * 2 / 3), name: "broken.jpg")
        let digest = "digest-of-truncated"
        let photos = DecodedPhotos(capacity: 8 << 20)
        let lenient = Thumbnailer(policy: DecodePolicy(damage: .warn), decodedPhotos: photos)
        for width in [90, 95] {
            let made = try lenient.thumbnail(of: truncated, width: width, digest: digest)
            #expect(made.warning?.hasPrefix("broken.jpg: damaged image data") == true, "\(width)")
        }
        #expect(photos.hits == 1)
        // Strict: an error each time, nothing kept.
        let strictPhotos = DecodedPhotos(capacity: 8 << 20)
        for width in [90, 95] {
            #expect(throws: ImageInputError.self) {
                try Thumbnailer(decodedPhotos: strictPhotos).thumbnail(of: truncated, width: width, digest: digest)
            }
        }
        #expect(strictPhotos.hits == 0 && strictPhotos.bytes == 0)
    }

    @Test func theBoundHoldsAndTheLeastRecentlyUsedGoFirst() throws {
        let image = MemoryImage(width: 100, height: 100)  // 30,000 bytes
        let photos = DecodedPhotos(capacity: 250_000)  // keeps decodes up to 31,250 bytes
        photos.keep(.init(image: MemoryImage(width: 110, height: 100), warning: nil), digest: "big", shrink: 1)
        #expect(photos.bytes == 0, "over an eighth of the bound: not kept")
        for index in 0..<8 { photos.keep(.init(image: image, warning: nil), digest: "d\(index)", shrink: 2) }
        #expect(photos.bytes == 240_000)
        _ = photos.decode(digest: "d0", shrink: 2)  // now the most recently used
        photos.keep(.init(image: image, warning: nil), digest: "d8", shrink: 2)
        #expect(photos.bytes <= 250_000 * 3 / 4)
        #expect(photos.decode(digest: "d0", shrink: 2) != nil && photos.decode(digest: "d8", shrink: 2) != nil)
        #expect(photos.decode(digest: "d1", shrink: 2) == nil, "the least recently used went")
        #expect(photos.decode(digest: "d0", shrink: 4) == nil, "another scale is another decode")
    }

    @Test func roomIsMadeForTheDecodeInFlightSoTheBoundHoldsItToo() throws {
        let image = MemoryImage(width: 100, height: 100)  // 30,000 bytes
        let photos = DecodedPhotos(capacity: 250_000)
        for index in 0..<8 { photos.keep(.init(image: image, warning: nil), digest: "d\(index)", shrink: 2) }
        _ = photos.decode(digest: "d0", shrink: 2)
        photos.makeRoom(for: 30_000)  // a decode about to be made
        #expect(photos.bytes + 30_000 <= 250_000, "\(photos.bytes) kept beside the decode in flight")
        #expect(photos.decode(digest: "d0", shrink: 2) != nil, "the most recently used stays")
        #expect(photos.decode(digest: "d1", shrink: 2) == nil, "the least recently used went first")
        let before = photos.bytes
        photos.makeRoom(for: 40_000)  // too large to keep: nothing is dropped for it
        #expect(photos.bytes == before)
    }
}
