import Foundation
import ImageCore
import PhotoSources
import PressKit
import TestSupport
import Testing
import VipsKit

@testable import CardKit

/// Every valid spec renders, in both executors, with the same picture: seeded specs from the
/// whole range of every field (scale 0.05-20, any rotation, offsets to +-10 windows, every
/// frame, effect, size, dpi, bleed, background, a message, the press presets) over JPEGs in
/// every EXIF orientation, PNG (8 and 16 bits), grey, CMYK, a Display P3 JPEG and an iPhone
/// HEIC. Each spec renders with `--engine auto` and `--engine general`; where auto took the
/// fast executor, the print files agree within a mean absolute difference of 1.5 (the samples,
/// each drawn from the photo at its own size, within 2.5); and the preview of each side
/// (`CardRenderer.preview`, the postcard service's) is its sample, on either executor.
///
/// `CARDRENDER_FUZZ_COUNT`, `CARDRENDER_FUZZ_SEED` and `CARDRENDER_FUZZ_MAX_DPI` change the
/// walk (`scripts/fuzz-specs.sh N SEED` runs 10,000 at every dpi); the suite keeps 200 specs
/// at 72-300 dpi so that it runs in about a minute. A failure prints its spec to replay.
@Suite(.libvips, .enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
struct SpecSpaceTests {
    static let environment = ProcessInfo.processInfo.environment
    static let count = environment["CARDRENDER_FUZZ_COUNT"].flatMap { Int($0) } ?? 200
    static let seed = environment["CARDRENDER_FUZZ_SEED"].flatMap { UInt64($0) } ?? 2026
    static let maxDPI = environment["CARDRENDER_FUZZ_MAX_DPI"].flatMap { Int($0) } ?? 300
    static let catalogue = try? FrameCatalogue(directory: Fixtures.root.path + "/frames")
    /// Previews' kept decodes, shared by every spec (keyed by the photo's path).
    static let keptDecodes = DecodedPhotos(capacity: 256 << 20, largestShare: 3)

    /// The photos, made once: the corpus's 16 orientation JPEGs and derived formats.
    static let photos: Result<[ImageData], any Error> = Result {
        let directory = try Fixtures.scratchDirectory("spec-space-photos")
        let landscape = Fixtures.photo("orientation/Landscape_1.jpg")
        try Tools.vips("thumbnail", landscape, directory + "/png8.png", "900")
        try Tools.vips("linear", directory + "/png8.png", directory + "/wide.v", "257", "0")
        try Tools.vips("cast", directory + "/wide.v", directory + "/cast.v", "ushort")
        try Tools.vips("copy", directory + "/cast.v", directory + "/png16.png", "--interpretation", "rgb16")
        try Tools.vips("colourspace", Fixtures.photo("orientation/Portrait_1.jpg"), directory + "/grey.jpg", "b-w")
        try Tools.vips("colourspace", landscape, directory + "/cmyk.jpg", "cmyk")
        var paths = (1...8).flatMap {
            [Fixtures.photo("orientation/Landscape_\($0).jpg"), Fixtures.photo("orientation/Portrait_\($0).jpg")]
        }
        paths += ["png8.png", "png16.png", "grey.jpg", "cmyk.jpg"].map { directory + "/" + $0 }
        paths += [Fixtures.photo("photos/iphone-hdr-3264x2448.jpg"), Fixtures.photo("photos/iphone13-3024x4032.heic")]
        return try paths.map { try ImageData(contentsOfFile: $0, maxBytes: 64 << 20) }
    }

    /// The press presets, with the bundled profiles.
    static let presses: [PressProfile] = {
        guard let conditions = try? PressCondition.bundled(in: Fixtures.root.path + "/press/profiles") else {
            return []
        }
        return PressProfile.presets(fogra39: conditions.fogra39, gracol2006: conditions.gracol2006)
    }()

    @Test("every generated spec renders alike in both executors", arguments: 0..<SpecSpaceTests.count)
    func generatedSpec(index: Int) throws {
        let photos = try Self.photos.get()
        let frames = (Self.catalogue?.frames.map(\.id)) ?? []
        var generator = CardSpecGenerator(
            seed: Self.seed &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(index), frames: frames, maxDPI: Self.maxDPI)
        var json = generator.next()
        // The HEIC (12 MP, decoded whole) one time in twenty; the rest evenly.
        let photo =
            index % 20 == 19 ? photos.last! : photos[Int.random(in: 0..<(photos.count - 1), using: &generator.random)]
        let press = generator.chance(0.08) ? Self.presses.randomElement(using: &generator.random) : nil
        let specFile = "spec #\(index) (seed \(Self.seed))"
        if let crop = json["crop"] as? [String: Double] {
            json["crop"] = try Self.crop(crop, json: json, photo: photo, press: press)
        }
        let data = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
        let replay =
            "\(specFile) on \(photo.name)\(press.map { " with --press \($0.name)" } ?? ""): \(String(decoding: data, as: UTF8.self))"
        let spec = try CardSpec.parse(data, file: specFile)
        var rendered: [RenderEngine: RenderedCard] = [:]
        for engine in [RenderEngine.auto, .general] {
            let settings = CardSettings(
                printFile: press.map { .pdf($0, quality: 92) } ?? .jpeg, engine: engine)
            do {
                rendered[engine] = try CardRenderer(catalogue: Self.catalogue, settings: settings)
                    .render(photo: photo, spec: spec, specFile: specFile)
            } catch {
                Issue.record("--engine \(engine.rawValue) failed: \(error)\n  \(replay)")
            }
        }
        guard let auto = rendered[.auto], let general = rendered[.general] else { return }
        // The postcard service's preview of each side is the sample, byte for byte: made
        // once with the photo decoded and once from the decode kept by the first.
        let previewer = CardRenderer(
            catalogue: Self.catalogue,
            settings: CardSettings(printFile: press.map { .pdf($0, quality: 92) } ?? .jpeg))
        for round in ["first", "kept decode"] {
            let front = try previewer.preview(
                photo: photo, digest: photo.name, spec: spec, side: .front, specFile: specFile,
                decoded: Self.keptDecodes)
            #expect(front == auto.front.sample, "the front's preview (\(round)) is not its sample\n  \(replay)")
        }
        // The general executor's preview is its own sample too (one spec in four: it decodes the
        // photo whole with libvips).
        if index % 4 == 0 {
            var settings = previewer.settings
            settings.engine = .general
            let front = try CardRenderer(catalogue: Self.catalogue, settings: settings).preview(
                photo: photo, digest: photo.name, spec: spec, side: .front, specFile: specFile,
                decoded: Self.keptDecodes)
            #expect(front == general.front.sample, "the general executor's preview is not its sample\n  \(replay)")
        }
        if let back = auto.versos.first {
            let preview = try previewer.preview(
                photo: photo, digest: photo.name, spec: spec, side: .back, specFile: specFile, decoded: Self.keptDecodes
            )
            #expect(preview == back.sample, "the back's preview is not its sample\n  \(replay)")
        }
        #expect(auto.front.printSize == general.front.printSize, "\(replay)")
        #expect(auto.front.sampleSize == general.front.sampleSize && auto.front.smallSize == general.front.smallSize)
        #expect(auto.versos.count == general.versos.count)
        guard auto.path == .fast else { return }
        // The print file (an image), or for a press the sample made from the same pixels.
        let (a, b) =
            press == nil ? (auto.front.print, general.front.print) : (auto.front.sample, general.front.sample)
        let difference = try Fixtures.load(a, name: "auto").meanAbsoluteDifference(
            to: try Fixtures.load(b, name: "general"))
        #expect(difference <= 1.5, "fast and general differ by \(difference) of 255\n  \(replay)")
        guard press == nil else { return }
        let samples = try Fixtures.load(auto.front.sample, name: "auto sample").meanAbsoluteDifference(
            to: try Fixtures.load(general.front.sample, name: "general sample"))
        #expect(samples <= 2.5, "the samples of fast and general differ by \(samples) of 255\n  \(replay)")
    }

    /// A crop drawn as fractions (`fraction` of the largest crop of the window's shape, at
    /// `x`, `y` of the room left), made whole pixels inside the upright photo.
    static func crop(_ fractions: [String: Double], json: [String: Any], photo: ImageData, press: PressProfile?)
        throws -> [String: Int]
    {
        var shape = json
        shape["crop"] = nil
        var spec = try CardSpec.parse(try JSONSerialization.data(withJSONObject: shape), file: "shape")
        if let press { spec.format = press.cardFormat }
        let header = try photo.header(policy: .default)
        let frame = spec.frame.flatMap { catalogue?.frame($0) }
        let layout = try CardLayout(spec: spec, frame: frame, photo: header, specFile: "shape")
        let aspect = Double(layout.window.width) / Double(layout.window.height)
        let (width, height) = (Double(layout.photo.width), Double(layout.photo.height))
        let largest = min(height, width / aspect)
        let cropHeight = max(48, (fractions["fraction"]! * largest).rounded(.down))
        let cropWidth = min(width, (cropHeight * aspect).rounded())
        return [
            "x": Int((fractions["x"]! * (width - cropWidth)).rounded(.down)),
            "y": Int((fractions["y"]! * (height - cropHeight)).rounded(.down)), "width": Int(cropWidth),
            "height": Int(cropHeight),
        ]
    }
}
