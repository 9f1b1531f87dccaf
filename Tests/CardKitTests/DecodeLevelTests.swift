import FastPath
import Foundation
import ImageCore
import PhotoSources
import TestSupport
import Testing
import Thumbnails

@testable import CardKit

/// The levels of a decode (`DecodeLevel`) are the same pixels however they are made: halved
/// from a band of rows (a card's sample, from the rows its print decoded) or from the whole
/// decode (a preview's kept level), or from a finer level kept; and a preview at any zoom,
/// reading what earlier previews kept, is the card's sample byte for byte.
@Suite(.libvips)
struct DecodeLevelTests {
    @Test("a band's level is the whole level's rows, at odd sizes and unaligned bands")
    func bandsHalveAsTheWhole() {
        for (width, height) in [(37, 29), (64, 64), (101, 7)] {
            let whole = KernelDispatchTests.noise(width: width, height: height, seed: 7)
            for halvings in 1...3 {
                let level = DecodeLevel(shrink: 1, halvings: halvings)
                let expected = PixelKernels.halved(whole, times: halvings)
                #expect(level.halve(whole, top: 0, decodedHeight: height).image == expected)
                #expect(expected.width == level.size(fromDecoded: (width, height)).width)
                for top in [0, 1, 3, 5, 8] where top < height {
                    for end in [height, height - 1, top + 9] where end > top && end <= height {
                        let band = whole.cropped(x: 0, y: top, width: width, height: end - top)
                        let (rows, first) = level.halve(band, top: top, decodedHeight: height)
                        guard rows.height > 0 else { continue }
                        #expect(first * (1 << halvings) >= top)
                        #expect(
                            rows == expected.cropped(x: 0, y: first, width: expected.width, height: rows.height),
                            "\(width)x\(height), band \(top)..<\(end), \(halvings) halvings")
                    }
                }
            }
        }
    }

    @Test(
        "previews zooming in and out read kept levels and are the cards' samples",
        .enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func previewsAcrossZoomsAreSamples() throws {
        let catalogue = try FrameCatalogue(directory: Fixtures.root.path + "/frames")
        let renderer = CardRenderer(catalogue: catalogue)
        let kept = DecodedPhotos(capacity: 256 << 20, largestShare: 3)
        for name in ["photos/phone-4032x3024.jpg", "photos/iphone13-3024x4032.heic"] {
            let photo = try ImageData(contentsOfFile: Fixtures.photo(name), maxBytes: 64 << 20)
            // In, out, in again and turned: finer levels first, then coarser ones made from them.
            for (scale, rotation) in [(2.5, 0.0), (1.0, 12.5), (1.6, -30), (1.0, 0), (2.5, 33)] {
                let spec = CardSpec(
                    placement: .transform(scale: scale, rotation: rotation, offsetX: 0.04, offsetY: -0.03),
                    frame: "travel/airmail", effect: ColourEffect(.sepia))
                let preview = try renderer.preview(
                    photo: photo, digest: name, spec: spec, side: .front, specFile: "zoom", decoded: kept)
                let card = try renderer.render(photo: photo, spec: spec, specFile: "zoom")
                #expect(card.path == .fast, "\(name) at \(scale), \(rotation) degrees")
                #expect(preview == card.front.sample, "\(name) at \(scale), \(rotation) degrees")
            }
        }
        // Every later preview found its level kept (or made it from a finer one): no more
        // than one decode per scale and photo.
        #expect(kept.hits >= 6)
    }

    @Test("a request's key tells every field apart")
    func requestKeysDiffer() {
        var requests: [ThumbnailRequest] = [
            ThumbnailRequest(width: 200), ThumbnailRequest(width: 200, enlarge: true), ThumbnailRequest(width: 201),
            ThumbnailRequest(box: ThumbnailBox(width: 200, height: 100)),
            ThumbnailRequest(box: ThumbnailBox(width: 200, height: 100, fit: .cover)),
            ThumbnailRequest(box: ThumbnailBox(width: 200, height: 100, fit: .cover, gravity: .north)),
            ThumbnailRequest(box: ThumbnailBox(width: 200, height: 100, fit: .cover, gravity: .attention)),
            ThumbnailRequest(box: ThumbnailBox(width: 200, height: 100, fit: .cover, gravity: .focus(x: 0.2, y: 0.3))),
            ThumbnailRequest(box: ThumbnailBox(width: 200, height: 100, fit: .cover, gravity: .focus(x: 0.3, y: 0.2))),
            ThumbnailRequest(box: ThumbnailBox(width: 200, height: 100, fit: .contain, background: [1, 2, 3])),
            ThumbnailRequest(box: ThumbnailBox(width: 200, height: 100, fit: .contain, background: [1, 2, 3, 4])),
            ThumbnailRequest(box: ThumbnailBox(width: 200, dpr: 2)),
            ThumbnailRequest(box: ThumbnailBox(width: 200), placeholder: .blur),
            ThumbnailRequest(box: ThumbnailBox(width: 200), placeholder: .thumbhash),
            ThumbnailRequest(box: ThumbnailBox(width: 200), maxFrames: 3),
        ]
        requests += ThumbnailBox.Gravity.names.values.map {
            ThumbnailRequest(box: ThumbnailBox(width: 50, height: 50, fit: .cover, gravity: $0))
        }
        let distinct = Set(requests)
        #expect(Set(distinct.map(\.key)).count == distinct.count)
        #expect(ThumbnailRequest(width: 200).key == ThumbnailRequest(width: 200).key)
    }
}
