import Foundation
import ImageCore
import PhotoSources
import TestSupport
import Testing
import Thumbnails

@testable import CardKit

/// A fast-path thumbnail whose decode is not kept streams the photo's rows through the
/// resampler (`Thumbnailer.streamedPixels`) and gives the bytes of the whole decode's path:
/// widths, crops, padding, a Display P3 photo's conversion, a damaged photo's warning.
@Suite(.libvips) struct StreamedThumbnailTests {
    /// A thumbnailer that keeps every decode (so it takes the whole decode's path) and one
    /// that keeps none (so it streams).
    static func pair() -> (whole: Thumbnailer, streamed: Thumbnailer, kept: DecodedPhotos) {
        let kept = DecodedPhotos(capacity: 1 << 30)
        return (Thumbnailer(decodedPhotos: kept), Thumbnailer(), kept)
    }

    static let boxes: [ThumbnailBox] = [
        ThumbnailBox(width: 1500),  // full scale (a reduction under 2 left at 1/2)
        ThumbnailBox(width: 640),  // 1/2
        ThumbnailBox(width: 300, height: 300, fit: .cover, gravity: .north),
        ThumbnailBox(width: 400, height: 180, fit: .cover, gravity: .focus(x: 0.8, y: 0.3)),
        ThumbnailBox(width: 500, height: 500, fit: .contain, background: [10, 20, 30]),
        ThumbnailBox(width: 350, height: 900, fit: .fill),
    ]

    @Test(
        .enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing),
        arguments: ["photos/phone-4032x3024.jpg", "photos/iphone-hdr-3264x2448.jpg", "orientation/Landscape_1.jpg"])
    func streamedThumbnailsAreTheWholeDecodesBytes(_ name: String) throws {
        let photo = try ImageData(contentsOfFile: Fixtures.photo(name), maxBytes: 64 << 20)
        let header = try photo.photoHeader(policy: .default)
        let (whole, streamed, kept) = Self.pair()
        for (index, box) in Self.boxes.enumerated() {
            let request = ThumbnailRequest(box: box)
            let plan = ThumbnailPlan(
                photo: photo, header: header, request: request, options: EncodeOptions(), engine: .auto)
            guard case .fast(let source) = plan.executor else {
                Issue.record("\(name): expected the fast executor")
                return
            }
            let streams = try streamed.streamedPixels(source, plan: plan, header: header, digest: "d") != nil
            #expect(streams, "\(name), box \(index): streamed without kept decodes")
            let a = try streamed.thumbnail(of: photo, request: request, digest: "d")
            let b = try whole.thumbnail(of: photo, request: request, digest: "d\(index)")
            #expect(
                try whole.streamedPixels(source, plan: plan, header: header, digest: "d\(index)") == nil,
                "\(name), box \(index): a decode the thumbnailer keeps is not streamed")
            #expect(a.path == .fast && b.path == .fast)
            #expect(a.width == b.width && a.height == b.height, "\(name), box \(index)")
            #expect(a.data == b.data, "\(name), box \(index): the streamed thumbnail's bytes differ")
        }
        #expect(kept.bytes > 0, "the whole decodes were kept")
    }

    @Test func aTurnedPhotoOrAnAttentionCropDecodesWhole() throws {
        let photo = ImageData(copying: try FastPathDamageTests.photo(800, 600), name: "photo.jpg")
        let header = try photo.photoHeader(policy: .default)
        let attention = ThumbnailRequest(box: ThumbnailBox(width: 100, height: 100, fit: .cover, gravity: .attention))
        let plan = ThumbnailPlan(
            photo: photo, header: header, request: attention, options: EncodeOptions(), engine: .auto)
        guard case .fast(let source) = plan.executor else {
            Issue.record("expected the fast executor")
            return
        }
        #expect(source.streams)
        #expect(try Thumbnailer().streamedPixels(source, plan: plan, header: header, digest: nil) == nil)
        let upright = ThumbnailRequest(width: 100)
        let uprightPlan = ThumbnailPlan(
            photo: photo, header: header, request: upright, options: EncodeOptions(), engine: .auto)
        #expect(try Thumbnailer().streamedPixels(source, plan: uprightPlan, header: header, digest: nil) != nil)
        guard Fixtures.corpusAvailable else { return }
        let turned = try ImageData(contentsOfFile: Fixtures.photo("orientation/Landscape_6.jpg"), maxBytes: 64 << 20)
        let turnedHeader = try turned.photoHeader(policy: .default)
        let turnedPlan = ThumbnailPlan(
            photo: turned, header: turnedHeader, request: upright, options: EncodeOptions(), engine: .auto)
        guard case .fast(let turnedSource) = turnedPlan.executor else {
            Issue.record("expected the fast executor for a turned JPEG")
            return
        }
        #expect(!turnedSource.streams)
        #expect(
            try Thumbnailer().streamedPixels(turnedSource, plan: turnedPlan, header: turnedHeader, digest: nil) == nil)
    }

    @Test func aDamagedPhotoWarnsOrFailsAsTheWholeDecodeDoes() throws {
        let full = try FastPathDamageTests.photo(800, 600)
        let truncated = ImageData(copying: full.prefix(full.count * 2 / 3), name: "broken.jpg")
        let (whole, streamed, _) = Self.pair()
        let lenient = DecodePolicy(damage: .warn)
        var wholeLenient = whole
        wholeLenient.policy = lenient
        var streamedLenient = streamed
        streamedLenient.policy = lenient
        let a = try streamedLenient.thumbnail(of: truncated, width: 300, digest: "t")
        let b = try wholeLenient.thumbnail(of: truncated, width: 300, digest: "t")
        #expect(a.warning?.hasPrefix("broken.jpg: damaged image data") == true)
        #expect(a.warning == b.warning && a.data == b.data)
        do {
            _ = try streamed.thumbnail(of: truncated, width: 300)
            Issue.record("a strict thumbnail of a truncated photo was made")
        } catch ImageInputError.damaged(let file, _) {
            #expect(file == "broken.jpg")
        }
    }
}
