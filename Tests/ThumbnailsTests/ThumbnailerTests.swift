import Foundation
import ImageCore
import PhotoSources
import TestSupport
import Testing
import Thumbnails
import VipsKit

/// The GD-style thumbnailer: sizes, formats, orientation, bad input.
@Suite(.libvips) struct ThumbnailerTests {
    @Test(arguments: [
        (4032, 3024, 200, false, 200, 150),
        (3024, 4032, 200, false, 200, 267),
        (4608, 1976, 200, false, 200, 86),
        (1800, 1200, 1, false, 1, 1),
        (100, 1, 50, false, 50, 1),
        (300, 200, 600, false, 300, 200),
        (300, 200, 600, true, 600, 400),
    ])
    func outputSizeFollowsTheAspectRatio(
        source: (Int, Int, Int, Bool, Int, Int)
    ) {
        let (width, height, asked, enlarge, expectedWidth, expectedHeight) = source
        let size = Thumbnailer.outputSize(sourceWidth: width, sourceHeight: height, width: asked, enlarge: enlarge)
        #expect(size.width == expectedWidth && size.height == expectedHeight)
    }

    @Test func widthOutsideTheRangeIsRefused() throws {
        let path = try Fixtures.scratchDirectory() + "/q.png"
        try Synthetic.quadrants(path)
        let thumbnailer = Thumbnailer(maxWidth: 500)
        for width in [0, -3, 501] {
            #expect(throws: ThumbnailError.widthOutOfRange(received: width, maximum: 500)) {
                try thumbnailer.thumbnail(file: path, width: width)
            }
        }
        let error = ThumbnailError.widthOutOfRange(received: 0, maximum: 8192)
        #expect(error.description == "width must be a whole number from 1 to 8192; received 0.")
    }

    @Test func defaultIsPNGAndColoursStayPut() throws {
        let path = try Fixtures.scratchDirectory() + "/q.png"
        try Synthetic.quadrants(path, width: 400, height: 300)
        let thumbnail = try Thumbnailer().thumbnail(file: path, width: 100)
        #expect(thumbnail.format == .png)
        #expect(Array(thumbnail.data.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
        let image = try Fixtures.load(thumbnail.data)
        #expect(image.width == 100 && image.height == 75)
        let red = try image.pixel(x: 10, y: 10)
        let yellow = try image.pixel(x: 90, y: 65)
        #expect(abs(red[0] - 220) < 6 && abs(red[1] - 30) < 6)
        #expect(abs(yellow[0] - 230) < 6 && abs(yellow[2] - 30) < 6)
    }

    @Test func smallerSourceIsNotEnlargedUnlessAsked() throws {
        let path = try Fixtures.scratchDirectory() + "/q.png"
        try Synthetic.quadrants(path, width: 64, height: 48)
        let same = try Thumbnailer().thumbnail(file: path, width: 640)
        #expect(same.width == 64 && same.height == 48)
        let big = try Thumbnailer().thumbnail(file: path, width: 640, enlarge: true)
        #expect(big.width == 640 && big.height == 480)
        #expect(try Fixtures.load(big.data).width == 640)
    }

    @Test(arguments: [OutputFormat.jpeg, .webp, .avif])
    func otherFormatsOnRequest(format: OutputFormat) throws {
        let path = try Fixtures.scratchDirectory() + "/q.png"
        try Synthetic.quadrants(path, width: 400, height: 300)
        let thumbnail = try Thumbnailer().thumbnail(
            file: path, width: 120, options: EncodeOptions(format: format, quality: 90))
        let header = try ImageData(copying: thumbnail.data, name: "t").header()
        #expect(header.width == 120 && header.height == 90)
        #expect(header.format == (format == .jpeg ? .jpeg : format == .webp ? .webp : .heif))
    }

    /// TIFF is read; an animated GIF gives its first frame (top half of the quadrants:
    /// red and green), not the whole strip of frames.
    @Test func tiffAndFirstFrameOfAnimatedGIF() throws {
        let directory = try Fixtures.scratchDirectory()
        try Synthetic.quadrants(directory + "/q.png", width: 64, height: 48)
        try Tools.vips("copy", directory + "/q.png", directory + "/q.tif")
        try Tools.vips("copy", directory + "/q.png", directory + "/anim.gif[page_height=24]")
        let tiff = try Thumbnailer().thumbnail(file: directory + "/q.tif", width: 32)
        #expect(tiff.width == 32 && tiff.height == 24)
        let gifData = try ImageData(contentsOfFile: directory + "/anim.gif", maxBytes: 1 << 20)
        #expect(try gifData.header().format == .gif)
        let gif = try Thumbnailer().thumbnail(of: gifData, width: 64)
        #expect(gif.width == 64 && gif.height == 24)
        let frame = try Fixtures.load(gif.data)
        let bottomLeft = try frame.pixel(x: 4, y: 20)
        #expect(bottomLeft[0] > 150 && bottomLeft[2] < 90, "first frame is red/green, not blue/yellow")
    }

    /// All 18 orientation examples (EXIF 0-8, landscape and portrait) come out the same
    /// way up. Each is compared with the orientation-1 thumbnail of its series. Threshold:
    /// the images hold the same picture re-encoded, so an upright match differs by JPEG
    /// noise (under 3/255 here), while a wrongly rotated or mirrored one differs by 40+.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func everyOrientationComesOutUpright() throws {
        let thumbnailer = Thumbnailer()
        for series in ["Landscape", "Portrait"] {
            let reference = try Fixtures.load(
                thumbnailer.thumbnail(file: Fixtures.photo("orientation/\(series)_1.jpg"), width: 120).data)
            for index in 0...8 {
                let thumbnail = try thumbnailer.thumbnail(
                    file: Fixtures.photo("orientation/\(series)_\(index).jpg"), width: 120)
                let image = try Fixtures.load(thumbnail.data)
                #expect(image.width == reference.width && image.height == reference.height, "\(series)_\(index)")
                let difference = try image.meanAbsoluteDifference(to: reference)
                #expect(difference < 6, "\(series)_\(index): mean absolute difference \(difference)")
            }
        }
        // Proof the threshold discriminates: Landscape_3's stored pixels (upside down, not
        // auto-oriented) are far from the upright reference.
        let reference = try Fixtures.load(
            thumbnailer.thumbnail(file: Fixtures.photo("orientation/Landscape_1.jpg"), width: 120).data)
        let stored = try ImageData(contentsOfFile: Fixtures.photo("orientation/Landscape_3.jpg"), maxBytes: 1 << 24)
            .decode(strict: true, autoOrient: false)
        let upsideDown = try stored.resized(
            scale: 120 / Double(stored.width), verticalScale: Double(reference.height) / Double(stored.height))
        #expect(try upsideDown.meanAbsoluteDifference(to: reference) > 20)
    }

    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func realPhotosKeepTheirAspect() throws {
        let cases = [
            ("photos/phone-4032x3024.jpg", 200, 150), ("photos/nokia-8.3-4608x1976.jpg", 200, 86),
            ("photos/iphone13-3024x4032.heic", 200, 267), ("photos/reconyx-2048x1536.jpg", 200, 150),
            ("broken/invalid-exif-636x227.jpg", 200, 71),
        ]
        for (file, width, height) in cases {
            let thumbnail = try Thumbnailer().thumbnail(file: Fixtures.photo(file), width: 200)
            let image = try Fixtures.load(thumbnail.data)
            #expect(image.width == width && image.height == height, "\(file)")
        }
    }

    /// A badly corrupted JPEG: refused naming the file on both paths by default. Under
    /// `.warn` libvips still gives up (it stops after 100 decoder warnings), while the fast
    /// path renders what decodes with a warning naming the file, as `.warn` promises.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func corruptJPEGFailsNamingTheFile() throws {
        let path = Fixtures.photo("broken/corrupted-3648x2736.jpg")
        for engine in RenderEngine.allCases {
            let error = #expect(throws: ImageInputError.self) {
                try Thumbnailer(engine: engine).thumbnail(file: path, width: 200)
            }
            #expect(error?.file == path, "\(engine)")
            // libvips's error text is process-wide and tests run in parallel: assert on what
            // we attach ourselves (file, cause); the CLI test checks libvips's words.
            #expect(error?.description.contains("the image data is damaged") == true, "\(engine)")
        }
        let lenient = Thumbnailer(policy: DecodePolicy(damage: .warn))
        #expect(throws: ImageInputError.self) {
            try Thumbnailer(policy: lenient.policy, engine: .general).thumbnail(file: path, width: 200)
        }
        let thumbnail = try lenient.thumbnail(file: path, width: 200)
        #expect(thumbnail.path == .fast && thumbnail.width == 200 && thumbnail.height == 150)
        #expect(thumbnail.warning?.hasPrefix(path + ": damaged image data, rendered what decodes") == true)
    }

    /// A baseline JPEG cut short: refused by default, rendered with a warning when lenient.
    @Test(.enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
    func truncatedJPEGIsStrictByDefaultAndLenientOnRequest() throws {
        let directory = try Fixtures.scratchDirectory()
        try Tools.vips(
            "thumbnail", Fixtures.photo("photos/jolla-3264x2448.jpg"), directory + "/baseline.jpg", "800")
        let whole = try Data(contentsOf: URL(fileURLWithPath: directory + "/baseline.jpg"))
        let cut = directory + "/cut.jpg"
        try whole.prefix(whole.count * 6 / 10).write(to: URL(fileURLWithPath: cut))

        let error = #expect(throws: ImageInputError.self) { try Thumbnailer().thumbnail(file: cut, width: 200) }
        #expect(error?.file == cut)
        #expect(error?.description.contains("the image data is damaged") == true)
        let lenient = try Thumbnailer(policy: DecodePolicy(damage: .warn)).thumbnail(file: cut, width: 200)
        #expect(lenient.warning?.contains(cut) == true)
        let image = try Fixtures.load(lenient.data)
        #expect(image.width == 200 && image.height == 150)
    }
}
