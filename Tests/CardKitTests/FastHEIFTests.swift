import FastPath
import Foundation
import ImageCore
import PhotoSources
import TestSupport
import Testing
import Thumbnails

@testable import CardKit

/// A card's HEIF photo on the fast path (libheif straight into the executor): the pictures
/// the general path makes from the same photo (the limits of `FastPathTests`), on the corpus
/// iPhone 13 HEIC (Display P3, stored turned) and on HEIC and AVIF files libvips writes; what
/// the fast path does not take goes the libvips way; damaged files fail or render alike.
@Suite(.libvips, .enabled(if: Fixtures.corpusAvailable, Fixtures.corpusMissing))
struct FastHEIFTests {
    static let iPhone = Fixtures.photo("photos/iphone13-3024x4032.heic")

    @Test func theIPhoneHEICMakesTheGeneralPathsPictures() throws {
        let compare = FastPathTests()
        try compare.compare(file: Self.iPhone, CardSpec(), "HEIC cover")
        try compare.compare(
            file: Self.iPhone, CardSpec(frame: "travel/airmail", effect: ColourEffect(.sepia)), "HEIC airmail sepia")
        try compare.compare(
            file: Self.iPhone, CardSpec(placement: .crop(x: 300, y: 900, width: 2400, height: 1700)), "HEIC crop")
        try compare.compare(
            file: Self.iPhone, CardSpec(placement: .crop(x: 100, y: 100, width: 600, height: 424)), "HEIC enlarged crop"
        )
        try compare.compare(
            file: Self.iPhone,
            CardSpec(
                placement: .transform(scale: 0.7, rotation: 90, offsetX: 0.1, offsetY: 0), background: [20, 40, 60]),
            "HEIC quarter turn")
    }

    /// The corpus HEIC's `irot` set to each quarter turn (its box patched; libvips reads the
    /// turn through libheif): the fast path turns it as libheif does, and reads the turn
    /// from the boxes (`HEIFCodec.turn`).
    @Test(arguments: [0, 1, 2, 3])
    func everyQuarterTurnMatches(quarters: UInt8) throws {
        let path = try Self.turnedCopy(quarters: quarters, scratch: "turn\(quarters)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.withUnsafeBytes { HEIFCodec.turn(of: $0) } == [1, 8, 3, 6][Int(quarters)])
        try FastPathTests().compare(file: path, CardSpec(), "irot \(quarters)")
    }

    /// The box reader (`HEIFCodec.turn`, our C over bytes a stranger sends) on the corpus
    /// HEIC's header cut at every length and with bytes overwritten at 3,000 places: it
    /// answers a turn or nil, and never reads past what it was given: each input ends where
    /// an unreadable page begins, so one byte read past it would stop the test run.
    @Test func theTurnReaderSurvivesCutAndDamagedHeaders() throws {
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.iPhone)))
        let header = Array(whole.prefix(4096))
        var answers: Set<Int?> = []
        for length in 0...header.count {
            // A copy of exactly `length` bytes: the reader must stay inside it.
            answers.insert(Self.beforeAGuardPage(Array(header.prefix(length))) { HEIFCodec.turn(of: $0) })
        }
        var state: UInt64 = 0x5EED
        for _ in 0..<3000 {
            var damaged = header
            for _ in 0..<4 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                damaged[Int(state >> 33) % damaged.count] = UInt8(truncatingIfNeeded: state >> 17)
            }
            answers.insert(Self.beforeAGuardPage(damaged) { HEIFCodec.turn(of: $0) })
        }
        #expect(answers.isSubset(of: [nil, 1, 3, 6, 8]), "\(answers)")
        #expect(answers.contains(6) && answers.contains(nil), "the whole header turns; cut ones do not")
    }

    /// A copy of the corpus HEIC with its `irot` box set to `quarters` anticlockwise quarter
    /// turns, in the scratch directory `scratch`; its path.
    static func turnedCopy(quarters: UInt8, scratch: String) throws -> String {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: iPhone))
        let box = try #require(bytes.firstRange(of: Data("irot".utf8)), "the corpus HEIC has an irot box")
        bytes[box.upperBound] = quarters
        let path = try Fixtures.scratchDirectory(scratch) + "/turned.heic"
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// `body` over a copy of `bytes` that ends exactly where a page mapped without access
    /// begins.
    static func beforeAGuardPage<T>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) -> T) -> T {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let dataPages = max(1, (bytes.count + page - 1) / page)
        let total = (dataPages + 1) * page
        let base = mmap(nil, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)!
        precondition(base != MAP_FAILED, "mmap")
        defer { munmap(base, total) }
        let guardPage = base + dataPages * page
        precondition(mprotect(guardPage, page, PROT_NONE) == 0, "mprotect")
        let start = guardPage - bytes.count
        bytes.withUnsafeBytes {
            if let source = $0.baseAddress { start.copyMemory(from: source, byteCount: bytes.count) }
        }
        return body(UnsafeRawBufferPointer(start: start, count: bytes.count))
    }

    /// HEIC (x265) and AVIF (libaom) files libvips writes, without a profile, take the fast
    /// path and match; one with alpha, and every thumbnail, stay with libvips.
    @Test func otherEncodersFilesAndWhatStaysWithLibvips() throws {
        let directory = try Fixtures.scratchDirectory("heif")
        let source = directory + "/source.v"
        try Tools.vips("thumbnail", Fixtures.photo("photos/reconyx-2048x1536.jpg"), source, "900")
        try Tools.vips("heifsave", source, directory + "/plain.heic", "--Q", "90", "--compression", "hevc")
        try Tools.vips("heifsave", source, directory + "/plain.avif", "--Q", "90", "--compression", "av1")
        try Tools.vips("bandjoin_const", source, directory + "/alpha.v", "200")
        try Tools.vips("heifsave", directory + "/alpha.v", directory + "/alpha.heic", "--compression", "hevc")
        let compare = FastPathTests()
        for file in ["plain.heic", "plain.avif"] {
            try compare.compare(
                file: directory + "/" + file, CardSpec(frame: "love/hearts", effect: ColourEffect(.vintage)), file)
        }
        let alpha = try ImageData(contentsOfFile: directory + "/alpha.heic", maxBytes: 64 << 20)
        #expect(try CardRenderer(catalogue: nil).render(photo: alpha, spec: CardSpec(), specFile: "a").path == .general)
        let photo = try ImageData(contentsOfFile: Self.iPhone, maxBytes: 64 << 20)
        let thumbnail = try Thumbnailer().thumbnail(of: photo, width: 200)
        #expect(thumbnail.path == .general && thumbnail.width == 200 && thumbnail.height == 267)
    }

    /// The corpus HEIC cut short and overwritten at several places: for each damage policy,
    /// the fast path fails where the general path fails (naming the file) and otherwise
    /// makes the same picture (it is the same decoder, libheif).
    @Test func damagedHEICsFailOrRenderAlike() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: Self.iPhone))
        var variants: [(String, Data)] = [
            ("cut at 60 %", whole.prefix(whole.count * 6 / 10)), ("cut at 99 %", whole.prefix(whole.count * 99 / 100)),
        ]
        for fraction in [0.3, 0.75] {
            var broken = whole
            let at = Int(Double(whole.count) * fraction)
            for index in at..<(at + 512) { broken[index] = UInt8((index * 37) & 0xFF) }
            variants.append(("overwritten at \(fraction)", broken))
        }
        var outcomes: Set<String> = []
        for (label, bytes) in variants {
            let photo = ImageData(copying: bytes, name: "broken.heic")
            for damage in [DecodePolicy.Damage.fail, .warn] {
                var results: [RenderPath: Result<RenderedCard, any Error>] = [:]
                for engine in [RenderEngine.auto, .general] {
                    let renderer = CardRenderer(
                        catalogue: nil, settings: .init(policy: DecodePolicy(damage: damage), engine: engine))
                    results[engine == .auto ? .fast : .general] = Result {
                        try renderer.render(photo: photo, spec: CardSpec(), specFile: "broken.json")
                    }
                }
                switch (results[.fast]!, results[.general]!) {
                case (.failure(let fast), .failure(let general)):
                    outcomes.insert("failed")
                    for error in [fast, general] {
                        #expect("\(error)".contains("broken.heic"), "\(label) \(damage): \(error)")
                    }
                case (.success(let fast), .success(let general)):
                    outcomes.insert("rendered")
                    let (a, b) = (
                        try FastPathTests.pixels(fast.front.print), try FastPathTests.pixels(general.front.print)
                    )
                    #expect(a.width == b.width && a.height == b.height)
                    let difference = FastPathTests.difference(a.pixels, b.pixels, width: a.width, height: a.height)
                    #expect(difference.isSamePicture, "\(label) \(damage): \(difference)")
                case (let fast, let general):
                    Issue.record("\(label) \(damage): fast \(fast), general \(general)")
                }
            }
        }
        #expect(outcomes.contains("failed"), "a cut file fails on both paths")
    }
}
