import CardKit
import Foundation
import ImageCore
import Mail
import PhotoSources
import PressKit
import RenderCache
import TestSupport
import Testing
import Thumbnails

@testable import CardPipeline

/// Cache keys come from the resolved, `Encodable` spec and settings: a change to any field
/// that decides the bytes gives another key. The field lists below are checked against the
/// types themselves (`Mirror`), so a field added to a type fails here until it is covered.
@Suite(.libvips) struct CacheKeyTests {
    let memo: DigestMemo
    let renderer: CardRenderer

    init() throws {
        memo = try DigestMemo(directory: try Fixtures.scratchDirectory("memo"))
        renderer = CardRenderer(catalogue: try FrameCatalogue(directory: Fixtures.root.path + "/frames"))
    }

    func key(_ spec: CardSpec, _ settings: CardSettings = CardSettings()) throws -> CacheKey {
        var renderer = renderer
        renderer.settings = settings
        return try CacheKey(
            inputDigest: "photo", recipe: CardRecipe(spec: spec, renderer: renderer, memo: memo), versions: "v")
    }

    func labels(_ value: Any) -> Set<String> {
        Set(Mirror(reflecting: value).children.compactMap(\.label))
    }

    static let recipient = Recipient(
        name: "Mme Durand", address1: "12 rue des Lilas", address2: "Bât. B", postcode: "75011", city: "Paris",
        country: "France")
    static let base = CardSpec(
        photo: "a.jpg", placement: .transform(scale: 1.2, rotation: 90, offsetX: 0.1, offsetY: -0.1),
        frame: "travel/airmail", effect: ColourEffect(.sepia, strength: 0.5),
        format: CardFormat(size: .a6, dpi: 300, bleed: 3), background: [255, 255, 255],
        message: CardMessage(text: "Bises", font: .script, size: 14, colour: .blue, align: .left),
        recipients: [recipient])

    /// One variant of the base spec per field (and per nested field), each named.
    static let specVariants: [(String, @Sendable (inout CardSpec) -> Void)] = [
        ("placement.crop", { $0.placement = .crop(x: 0, y: 0, width: 300, height: 200) }),
        ("placement.scale", { $0.placement = .transform(scale: 1.3, rotation: 90, offsetX: 0.1, offsetY: -0.1) }),
        ("placement.rotation", { $0.placement = .transform(scale: 1.2, rotation: 0, offsetX: 0.1, offsetY: -0.1) }),
        ("placement.offsetX", { $0.placement = .transform(scale: 1.2, rotation: 90, offsetX: 0, offsetY: -0.1) }),
        ("placement.offsetY", { $0.placement = .transform(scale: 1.2, rotation: 90, offsetX: 0.1, offsetY: 0) }),
        ("frame", { $0.frame = "love/hearts" }),
        ("frame nil", { $0.frame = nil }),
        ("effect.name", { $0.effect = ColourEffect(.bw, strength: 0.5) }),
        ("effect.strength", { $0.effect = ColourEffect(.sepia, strength: 0.6) }),
        ("effect nil", { $0.effect = nil }),
        ("format.size", { $0.format.size = .a5 }),
        ("format.dpi", { $0.format.dpi = 301 }),
        ("format.bleed", { $0.format.bleed = 2 }),
        ("background", { $0.background = [255, 255, 254] }),
        ("message.text", { $0.message?.text = "Bisous" }),
        ("message.font", { $0.message?.font = .serif }),
        ("message.size", { $0.message?.size = 15 }),
        ("message.colour", { $0.message?.colour = .red }),
        ("message.align", { $0.message?.align = .right }),
        ("message nil", { $0.message = nil }),
        ("recipients.name", { $0.recipients[0].name = "M. Durand" }),
        ("recipients.organisation", { $0.recipients[0].organisation = "Mairie" }),
        ("recipients.address1", { $0.recipients[0].addressLines[0] = "13 rue des Lilas" }),
        ("recipients.address2", { $0.recipients[0].addressLines.removeLast() }),
        ("recipients.dependentLocality", { $0.recipients[0].dependentLocality = "Belleville" }),
        ("recipients.postcode", { $0.recipients[0].postcode = "75012" }),
        ("recipients.city", { $0.recipients[0].locality = "Lyon" }),
        ("recipients.region", { $0.recipients[0].region = "Île-de-France" }),
        ("recipients.sortingCode", { $0.recipients[0].sortingCode = "CEDEX 11" }),
        ("recipients.country", { $0.recipients[0].country = "BE" }),
        ("recipients count", { $0.recipients.append(recipient) }),
        ("sender", { $0.sender = recipient }),
        // Each service card's back carries its own code: one card's bytes never serve another.
        ("backCode", { $0.backCode = [0x43, 0x52, 0x01] + [UInt8](repeating: 1, count: 24) }),
        ("backCode other", { $0.backCode = [0x43, 0x52, 0x01] + [UInt8](repeating: 2, count: 24) }),
    ]

    /// The key names every native library that makes the bytes (by the headers built
    /// against) and, for a card with a back, the font files it may be drawn with.
    @Test func theKeyNamesTheNativeLibrariesAndTheFonts() throws {
        for library in [
            "libjpeg-turbo", "libpng", "zlib", "lcms2", "libheif", "pango", "cairo", "harfbuzz", "fontconfig",
            "librsvg",
            "libqpdf",
        ] {
            #expect(CacheVersions.current.contains(" \(library) "), "\(library) in \(CacheVersions.current)")
        }
        let back = try CardRecipe(spec: Self.base, renderer: renderer, memo: memo)
        let fonts = try #require(back.fonts)
        for font in CardMessage.Font.allCases {
            #expect(fonts.contains("\(font.rawValue) \(try memo.digest(ofFile: font.file))"))
        }
        #expect(fonts.contains("installed \(MessageFonts.installed)") && MessageFonts.installed.count == 64)
        var front = Self.base
        front.message = nil
        front.recipients = []
        #expect(try CardRecipe(spec: front, renderer: renderer, memo: memo).fonts == nil)
    }

    @Test func everyFieldOfTheSpecChangesTheKey() throws {
        // The fields covered here are all the fields there are.
        #expect(
            labels(Self.base)
                == [
                    "photo", "placement", "frame", "effect", "format", "background", "message", "recipients", "sender",
                    "backCode",
                ])
        #expect(labels(Self.base.format) == ["size", "dpi", "bleed"])
        #expect(labels(Self.base.effect!) == ["name", "strength"])
        #expect(labels(Self.base.message!) == ["text", "font", "size", "colour", "align"])
        #expect(
            labels(Self.recipient)
                == [
                    "name", "organisation", "addressLines", "dependentLocality", "locality", "region", "postcode",
                    "sortingCode", "country",
                ])
        let baseKey = try key(Self.base)
        var seen: Set<CacheKey> = [baseKey]
        for (name, change) in Self.specVariants {
            var spec = Self.base
            change(&spec)
            let changed = try key(spec)
            #expect(!seen.contains(changed), "changing \(name) did not change the key")
            seen.insert(changed)
        }
        // The photo's path is not part of it: the same bytes under another name are one entry.
        var renamed = Self.base
        renamed.photo = "elsewhere/b.jpg"
        #expect(try key(renamed) == baseKey)
    }

    /// The default JPEG print's options changed by `change`.
    static func image(_ change: (inout EncodeOptions) -> Void) -> PrintFile {
        var options = PrintFile.jpeg.encoding!
        change(&options)
        return .image(options)
    }

    /// A press profile whose condition has `profile` as its ICC bytes (the key holds a digest).
    static func press(
        profile: [UInt8], bleed: Double = 3, format: PressProfile.Format = .pdfX1a, inkLimit: Int = 300,
        cropMarks: Bool = false
    ) -> PressProfile {
        PressProfile(
            name: "test", source: "tests", size: .a6, bleed: bleed, safeZone: 5, format: format,
            condition: PressCondition(
                identifier: "FOGRA39", description: "test", inkLimit: inkLimit, profile: profile,
                profileName: "test.icc"), cropMarks: cropMarks)
    }

    @Test func everyRendererSettingChangesTheKey() throws {
        let settings = CardSettings()
        #expect(
            labels(settings) == [
                "policy", "qualityThreshold", "printFile", "sampleLongSide", "smallWidth", "engine", "postedFrom",
            ])
        let press = Self.press(profile: [1, 2, 3])
        #expect(
            labels(press) == ["name", "source", "size", "bleed", "safeZone", "dpi", "format", "condition", "cropMarks"])
        #expect(
            labels(press.condition)
                == ["identifier", "description", "registry", "inkLimit", "profile", "profileName", "profileDigest"])
        #expect(labels(settings.policy) == ["maxPixels", "maxFileBytes", "formats", "damage"])
        #expect(
            labels(try #require(settings.printFile.encoding))
                == [
                    "format", "quality", "progressive", "chroma", "pngCompression", "palette", "background",
                    "keepMetadata", "keepResolution",
                ])
        let variants: [(String, (inout CardSettings) -> Void)] = [
            ("policy.maxPixels", { $0.policy.maxPixels -= 1 }),
            ("policy.maxFileBytes", { $0.policy.maxFileBytes -= 1 }),
            ("policy.formats", { $0.policy.formats.remove(.gif) }),
            ("policy.damage", { $0.policy.damage = .warn }),
            ("qualityThreshold", { $0.qualityThreshold = 151 }),
            ("printFile.format", { $0.printFile = Self.image { $0.format = .tiff } }),
            ("printFile.quality", { $0.printFile = Self.image { $0.quality = 91 } }),
            ("printFile.progressive", { $0.printFile = Self.image { $0.progressive = true } }),
            ("printFile.chroma", { $0.printFile = Self.image { $0.chroma = .subsampled } }),
            ("printFile.pngCompression", { $0.printFile = Self.image { $0.pngCompression = 5 } }),
            ("printFile.palette", { $0.printFile = Self.image { $0.palette = true } }),
            ("printFile.background", { $0.printFile = Self.image { $0.background = [0, 0, 0] } }),
            ("printFile.keepMetadata", { $0.printFile = Self.image { $0.keepMetadata = true } }),
            ("printFile.keepResolution", { $0.printFile = Self.image { $0.keepResolution = false } }),
            ("sampleLongSide", { $0.sampleLongSide = 801 }),
            ("smallWidth", { $0.smallWidth = 201 }),
            ("engine", { $0.engine = .general }),
            ("postedFrom", { $0.postedFrom = "BE" }),
            ("printFile pdf", { $0.printFile = .pdf(Self.press(profile: [1, 2, 3]), quality: 92) }),
            ("printFile pdf quality", { $0.printFile = .pdf(Self.press(profile: [1, 2, 3]), quality: 91) }),
            ("press.bleed", { $0.printFile = .pdf(Self.press(profile: [1, 2, 3], bleed: 4), quality: 92) }),
            ("press.format", { $0.printFile = .pdf(Self.press(profile: [1, 2, 3], format: .pdfX4), quality: 92) }),
            ("press.cropMarks", { $0.printFile = .pdf(Self.press(profile: [1, 2, 3], cropMarks: true), quality: 92) }),
            ("press.condition.profile", { $0.printFile = .pdf(Self.press(profile: [1, 2, 4]), quality: 92) }),
            (
                "press.condition.inkLimit",
                { $0.printFile = .pdf(Self.press(profile: [1, 2, 3], inkLimit: 320), quality: 92) }
            ),
        ]
        var seen: Set<CacheKey> = [try key(Self.base, settings)]
        for (name, change) in variants {
            var changed = settings
            change(&changed)
            let changedKey = try key(Self.base, changed)
            #expect(!seen.contains(changedKey), "changing \(name) did not change the key")
            seen.insert(changedKey)
        }
        // Equal settings always give equal keys (the format set is encoded sorted).
        #expect(try key(Self.base, CardSettings()) == (try key(Self.base, CardSettings())))
    }

    @Test func everyThumbnailSettingChangesTheKey() throws {
        let thumbnailer = CachedThumbnailer(thumbnailer: Thumbnailer(), cache: nil)
        // `decodedPhotos` is a memo of decodes, not a setting: DecodedPhotosTests proves a width
        // made from a kept decode has the bytes of a fresh decode, so it stays out of the key.
        // `decodeBudget` only orders decodes in time (DecodeBudgetTests, HEIFThumbnailTests).
        #expect(labels(Thumbnailer()) == ["maxWidth", "policy", "engine", "decodedPhotos", "decodeBudget"])
        #expect(
            labels(
                ThumbnailRecipe(width: 1, enlarge: false, options: EncodeOptions(), policy: .default, engine: .auto))
                == ["kind", "width", "enlarge", "options", "policy", "engine", "box", "placeholder", "maxFrames"])
        let options = EncodeOptions()
        let base = try thumbnailer.key(inputDigest: "d", width: 200, enlarge: false, options: options)
        var changedOptions = options
        changedOptions.quality = 99
        let keys = [
            try thumbnailer.key(inputDigest: "e", width: 200, enlarge: false, options: options),
            try thumbnailer.key(inputDigest: "d", width: 201, enlarge: false, options: options),
            try thumbnailer.key(inputDigest: "d", width: 200, enlarge: true, options: options),
            try thumbnailer.key(inputDigest: "d", width: 200, enlarge: false, options: changedOptions),
            try CachedThumbnailer(thumbnailer: Thumbnailer(policy: DecodePolicy(damage: .warn)), cache: nil)
                .key(inputDigest: "d", width: 200, enlarge: false, options: options),
            try CachedThumbnailer(thumbnailer: Thumbnailer(engine: .general), cache: nil)
                .key(inputDigest: "d", width: 200, enlarge: false, options: options),
        ]
        // Every field of a box, a placeholder and the frame cap (for the formats that animate).
        let cover = ThumbnailBox(width: 200, height: 100, fit: .cover)
        var boxes = [
            ThumbnailBox(width: 200, height: 100), cover, ThumbnailBox(width: 200, height: 100, fit: .fill),
            ThumbnailBox(height: 100), ThumbnailBox(width: 200, dpr: 2),
            ThumbnailBox(width: 200, height: 100, fit: .contain),
            ThumbnailBox(width: 200, height: 100, fit: .contain, background: [1, 2, 3]),
        ]
        for gravity in [ThumbnailBox.Gravity.north, .attention, .focus(x: 0.2, y: 0.3)] {
            var box = cover
            box.gravity = gravity
            boxes.append(box)
        }
        var requests = boxes.map { ThumbnailRequest(box: $0) }
        requests.append(ThumbnailRequest(box: ThumbnailBox(width: 200), placeholder: .thumbhash))
        requests.append(ThumbnailRequest(box: ThumbnailBox(width: 200), placeholder: .blur))
        let boxKeys = try requests.map { try thumbnailer.key(inputDigest: "d", request: $0, options: options) }
        let webp = EncodeOptions(format: .webp)
        let frameKeys = try [200, 12].map {
            try thumbnailer.key(
                inputDigest: "d", request: ThumbnailRequest(box: ThumbnailBox(width: 200), maxFrames: $0), options: webp
            )
        }
        #expect(Set(keys + boxKeys + frameKeys + [base]).count == keys.count + boxKeys.count + frameKeys.count + 1)
        // The frame cap is not in a PNG's key (PNG is a still), nor a box setting that changes
        // nothing (gravity without a crop).
        #expect(
            try thumbnailer.key(
                inputDigest: "d", request: ThumbnailRequest(box: ThumbnailBox(width: 200), maxFrames: 3),
                options: options)
                == base)
        #expect(
            try thumbnailer.key(
                inputDigest: "d", request: ThumbnailRequest(box: ThumbnailBox(width: 200, gravity: .north)),
                options: options) == base)
        // maxWidth only refuses widths: it never changes a thumbnail's bytes, so not its key.
        #expect(
            try CachedThumbnailer(thumbnailer: Thumbnailer(maxWidth: 300), cache: nil)
                .key(inputDigest: "d", width: 200, enlarge: false, options: options) == base)
    }
}
