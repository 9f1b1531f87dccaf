import FastPath
import Foundation
import ImageCore
import PhotoSources
import Synchronization
import TestSupport
import Testing
import Thumbnails
import VipsKit

@testable import CardKit

/// An HEIF's thumbnails larger than its embedded one take the fast executor: the crop's box
/// resampled from the decode's YCbCr planes row by row, turned upright and converted to sRGB
/// once small. The planes' rows are libheif's own RGB; the thumbnails are libvips's pictures
/// (the limits of `FastPathTests`) at every quarter turn; small ones stay with libvips, which
/// starts from the embedded thumbnail.
@Suite(.libvips, .enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
struct HEIFThumbnailTests {
    static let iPhone = Fixtures.photo("photos/iphone13-3024x4032.heic")

    @Test func thePlanesRowsAreLibheifsRGBPicture() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.iPhone))
        try bytes.withUnsafeBytes { bytes in
            let info = try HEIFCodec.info(of: bytes)
            let turn = try #require(HEIFCodec.turn(of: bytes), "the corpus HEIC is stored turned (irot)")
            let planes = try #require(try HEIFCodec.Planes(bytes), "an iPhone HEIC is 8-bit full-range 4:2:0")
            var stored = [UInt8](repeating: 0, count: planes.width * planes.height * 3)
            stored.withUnsafeMutableBufferPointer { stored in
                for y in 0..<planes.height { planes.row(y, into: stored.baseAddress! + y * planes.width * 3) }
            }
            let upright = PixelKernels.oriented(
                MemoryImage(width: planes.width, height: planes.height, pixels: stored), turn)
            let libheif = try HEIFCodec.decode(bytes, info: info, turn: turn)
            #expect(upright.width == libheif.width && upright.height == libheif.height)
            // Compared here, not inside #expect: a failure would print both 36 MB arrays.
            var (total, mismatches) = (0, 0)
            for (a, b) in zip(upright.pixels, libheif.pixels) where a != b {
                total += abs(Int(a) - Int(b))
                mismatches += 1
            }
            let mean = Double(total) / Double(upright.pixels.count)
            // libheif's own RGB picture differs from its 4:2:0 planes converted by its formula in
            // about 5 % of the bytes (mean 0.08: libheif's RGB path, not traced further).
            #expect(mean < 0.25 && mismatches < upright.pixels.count / 10, "\(mean) on average, \(mismatches) bytes")
        }
    }

    /// Both executors' thumbnails of `file` for `request` (PNG: only the pixel paths differ):
    /// the same picture, or for an off-centre crop (which libvips cuts at whole pixels of the
    /// resized photo, and the fast path resamples from its fractional box, as for JPEGs in
    /// `ThumbnailBoxTests`) a mean difference under 3 (a crop in the wrong place is tens).
    func compare(_ file: String, _ request: ThumbnailRequest, _ label: String, crop: Bool = false) throws {
        let data = try ImageData(contentsOfFile: file, maxBytes: 64 << 20)
        let fast = try Thumbnailer().thumbnail(of: data, request: request)
        let general = try Thumbnailer(engine: .general).thumbnail(of: data, request: request)
        #expect(fast.path == .fast, "\(label): expected the fast path")
        #expect(fast.width == general.width && fast.height == general.height, "\(label)")
        let a = try FastPathTests.pixels(fast.data)
        let b = try FastPathTests.pixels(general.data)
        guard a.width == b.width && a.height == b.height else {
            Issue.record("\(label): \(a.width)x\(a.height) against \(b.width)x\(b.height)")
            return
        }
        let difference = FastPathTests.difference(a.pixels, b.pixels, width: a.width, height: a.height)
        if crop {
            #expect(difference.mean < 3, "\(label): not the same crop: \(difference)")
        } else {
            #expect(difference.isSamePicture, "\(label): not the same picture: \(difference)")
        }
    }

    @Test func largeThumbnailsAreLibvipsPictures() throws {
        try compare(Self.iPhone, ThumbnailRequest(width: 800), "800 wide")
        try compare(Self.iPhone, ThumbnailRequest(width: 1500), "1500 wide")
        try compare(
            Self.iPhone, ThumbnailRequest(box: ThumbnailBox(width: 600, height: 300, fit: .cover, gravity: .north)),
            "cover north")
        try compare(
            Self.iPhone,
            ThumbnailRequest(box: ThumbnailBox(width: 700, height: 700, fit: .contain, background: [200, 10, 10])),
            "contain")
    }

    /// The corpus HEIC's `irot` set to each quarter turn: a crop off the centre lands where
    /// libvips puts it (the box mapped into the stored picture, the result turned upright).
    @Test(arguments: [0, 1, 2, 3])
    func everyQuarterTurnCropsTheSamePlace(quarters: UInt8) throws {
        let path = try FastHEIFTests.turnedCopy(quarters: quarters, scratch: "thumbturn\(quarters)")
        try compare(
            path,
            ThumbnailRequest(
                box: ThumbnailBox(width: 500, height: 400, fit: .cover, gravity: .focus(x: 0.8, y: 0.25))),
            "irot \(quarters), cover off centre", crop: true)
    }

    @Test func smallThumbnailsStartFromTheEmbeddedOne() throws {
        let data = try ImageData(contentsOfFile: Self.iPhone, maxBytes: 64 << 20)
        let embedded = try #require(
            try data.withUnsafeBytes { bytes throws(HEIFCodec.Failure) in try HEIFCodec.thumbnailSize(of: bytes) },
            "the corpus HEIC embeds a thumbnail")
        let small = try Thumbnailer().thumbnail(of: data, width: min(embedded.width, embedded.height) / 2)
        #expect(small.path == .general)
        let attention = try Thumbnailer().thumbnail(
            of: data,
            request: ThumbnailRequest(box: ThumbnailBox(width: 900, height: 300, fit: .cover, gravity: .attention)))
        #expect(attention.path == .general, "the attention measure needs the whole picture")
    }

    /// `FastHEIFSource.storedBox` for all eight orientations: the stored box holds exactly the
    /// pixels the upright box shows (every pixel of a 7 x 5 picture numbered).
    @Test(arguments: 1...8)
    func aBoxMapsToTheStoredPicturesSamePixels(turn: Int) {
        let (width, height) = (7, 5)
        let stored = MemoryImage(
            width: width, height: height, pixels: (0..<(width * height)).flatMap { [UInt8($0), 0, 0] })
        let upright = PixelKernels.oriented(stored, turn)
        let box = (x: 1, y: 2, width: upright.width - 3, height: upright.height - 2)
        func numbers(_ image: MemoryImage, _ x: Int, _ y: Int, _ w: Int, _ h: Int) -> Set<UInt8> {
            Set((y..<(y + h)).flatMap { row in (x..<(x + w)).map { image.pixels[(row * image.width + $0) * 3] } })
        }
        let mapped = FastHEIFSource.storedBox(
            (Double(box.x), Double(box.y), Double(box.width), Double(box.height)), turn: turn,
            storedWidth: Double(width), storedHeight: Double(height))
        #expect(
            numbers(stored, Int(mapped.x), Int(mapped.y), Int(mapped.width), Int(mapped.height))
                == numbers(upright, box.x, box.y, box.width, box.height), "orientation \(turn)")
    }

    /// libvips-written HEICs: 4:2:0 takes the fast path and matches; 4:4:4 (whose chroma
    /// 4:2:0 planes would lose) and AVIF (no HEVC configuration) go libvips's way.
    @Test func otherEncodersFiles() throws {
        let directory = try Fixtures.scratchDirectory("heifthumbs")
        let source = directory + "/source.v"
        try Tools.vips("thumbnail", Fixtures.photo("photos/reconyx-2048x1536.jpg"), source, "1200")
        // libvips subsamples the chroma below quality 90 (`subsample-mode auto`).
        try Tools.vips("heifsave", source, directory + "/420.heic", "--Q", "80", "--compression", "hevc")
        try Tools.vips(
            "heifsave", source, directory + "/444.heic", "--Q", "90", "--compression", "hevc", "--subsample-mode", "off"
        )
        try Tools.vips("heifsave", source, directory + "/plain.avif", "--Q", "90", "--compression", "av1")
        try compare(directory + "/420.heic", ThumbnailRequest(width: 700), "libvips 4:2:0 HEIC")
        for file in ["444.heic", "plain.avif"] {
            let data = try ImageData(contentsOfFile: directory + "/" + file, maxBytes: 64 << 20)
            let made = try Thumbnailer().thumbnail(of: data, width: 700)
            #expect(made.path == .general && made.width == 700, "\(file)")
        }
    }

    /// The corpus HEIC cut short: a thumbnail fails naming the file, as on libvips's path; its
    /// header cut at many lengths and overwritten, read by the planes' configuration check
    /// (our C over a stranger's bytes) ending at an unreadable page: nil or an error, never a
    /// read past the end.
    @Test func damagedFilesFailClearly() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: Self.iPhone))
        for share in [60, 99] {
            let cut = ImageData(copying: whole.prefix(whole.count * share / 100), name: "cut.heic")
            do {
                _ = try Thumbnailer().thumbnail(of: cut, width: 1000)
                Issue.record("a thumbnail of a HEIC cut at \(share) % was made")
            } catch {
                // The header is libvips's to read (its error) or the decode libheif's (damaged).
                #expect("\(error)".hasPrefix("cut.heic"), "cut at \(share) %: \(error)")
            }
        }
        let header = Array(whole.prefix(4096))
        var state: UInt64 = 0xC0DE
        for length in stride(from: 0, through: header.count, by: 13) {
            var bytes = Array(header.prefix(length))
            if length % 2 == 1, !bytes.isEmpty {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes[Int(state >> 33) % bytes.count] = UInt8(truncatingIfNeeded: state >> 17)
            }
            let planes = FastHEIFTests.beforeAGuardPage(bytes) { try? HEIFCodec.Planes($0) }
            #expect(planes == nil, "a cut header decoded (length \(length))")
        }
    }

    /// The fast path's decode waits for the budget: held by another thread, the thumbnail
    /// is counted as waiting, and is made once the budget is given back.
    @Test func theDecodeWaitsForTheBudget() throws {
        let data = try ImageData(contentsOfFile: Self.iPhone, maxBytes: 64 << 20)
        let budget = DecodeBudget(capacity: 96 << 20)
        let (holding, release, made) = (DecodeBudgetTests.Gate(), DecodeBudgetTests.Gate(), DecodeBudgetTests.Gate())
        Thread.detachNewThread {
            budget.reserving(90 << 20) {
                holding.open()
                release.pass()
            }
        }
        holding.pass()
        let result = Mutex<Thumbnail?>(nil)
        Thread.detachNewThread {
            let thumbnail = try? Thumbnailer(decodeBudget: budget).thumbnail(of: data, width: 1000)
            result.withLock { $0 = thumbnail }
            made.open()
        }
        var spins = 0
        while budget.waiting == 0 && spins < 10_000_000 {
            sched_yield()
            spins += 1
        }
        #expect(budget.waiting == 1, "the thumbnail's decode did not wait for the budget")
        #expect(result.withLock { $0 } == nil)
        release.open()
        made.pass()
        let thumbnail = try #require(result.withLock { $0 })
        #expect(thumbnail.path == .fast && thumbnail.width == 1000 && budget.reserved == 0)
    }
}
