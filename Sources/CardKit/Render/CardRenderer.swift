import FastPath
import ImageCore
import Mail
import PhotoSources
import PressKit
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Renders a card: the photo side (placement, effect, frame, print file, sample, small image)
/// and a back per recipient.
///
/// In this order:
/// 1. header checked against the decode policy (format, pixel and byte limits), then the
///    spec's limits and its text, before any pixel work;
/// 2. the card resolved into one `CardPlan`: the part of the photo the window shows
///    (`CardPlan.Source`), the DCT scale, the effect, the art, the outputs (`CardOutputs`:
///    sizes and encodings) and which executor runs it;
/// 3. the executor (`CardExecutor`: `FastCardExecutor` or `GeneralCardExecutor`) decodes
///    only that part, places it on the window's background, applies the effect, embeds the
///    window in the card (plus bleed), blends the frame art over it and encodes the print
///    (streamed row by row when the fast executor declares it can); then the same steps at
///    the sample's size (the sample plan: `CardPlan.init(sampleOf:art:)`), from the photo,
///    for the sample and the small image;
/// 4. the backs laid out and encoded to the same kind of outputs;
/// 5. for a press (`PrintFile.pdf`), the print pixels separated to the press's CMYK and
///    written with each back, as vector art, into a PDF/X file per postcard (`PressDocument`).
public struct CardRenderer: Sendable {
    /// The frame catalogue (nil: only frameless cards).
    public var catalogue: FrameCatalogue?
    /// The settings.
    public var settings: CardSettings
    /// What one spec may ask for (recipients, message bytes); not in the cache key, since a
    /// card within the limits is the same card whatever they are.
    public var limits: CardLimits

    public init(catalogue: FrameCatalogue?, settings: CardSettings = CardSettings(), limits: CardLimits = .default) {
        self.catalogue = catalogue
        self.settings = settings
        self.limits = limits
    }

    /// Renders one card.
    /// - Parameters:
    ///   - photo: the photo's bytes (its `name` is used in errors).
    ///   - spec: the validated spec.
    ///   - specFile: the spec's path, named in spec errors found while rendering.
    /// - Throws: `CardSpecError` (unknown frame, crop outside the photo or of the wrong
    ///   shape, over a limit, text no font can draw), `ImageInputError` (refused or damaged
    ///   photo), `VipsError`.
    public func render(photo: ImageData, spec: CardSpec, specFile: String) throws -> RenderedCard {
        let started = ContinuousClock.now
        let (spec, frame, plan, placed) = try prepare(photo: photo, spec: spec, specFile: specFile)
        let layout = plan.layout
        // A press's PDF needs the print pixels (separated to CMYK); otherwise the print file is
        // encoded as the pixels are made (streamed when the fast executor can).
        let executor = plan.executor.runner(settings: settings)
        let executed = try executor.front(
            plan, sample: try samplePlan(of: plan, frame: frame), photo: photo,
            keepPixels: settings.printFile.press != nil)
        var front = executed.side
        let effect = plan.effect
        let effectiveDPI = Double(spec.format.dpi) / layout.photoScale
        var versos: [RenderedSide] = []
        let hasBack = spec.message != nil || !spec.recipients.isEmpty
        if hasBack {
            // A message the back cannot hold is the spec's (CardSpecError passes through);
            // anything else failing there is cardrender's.
            let backs = try CardRenderFailure.during(.back, file: specFile) {
                try verso(spec, specFile: specFile).render(
                    message: spec.message, sender: spec.sender, recipients: spec.recipients, format: spec.format,
                    specFile: specFile)
            }
            versos = try backs.enumerated().map { index, back in
                let side = try CardRenderFailure.during(.back, file: specFile) {
                    try CardOutputs(printSize: Size(width: back.width, height: back.height), settings: settings)
                        .encode(back)
                }
                try checkPostalZones(
                    side, back: back, format: spec.format, recipient: spec.recipients.isEmpty ? nil : index,
                    specFile: specFile)
                return side
            }
        }
        if let press = settings.printFile.press, let pixels = executed.pixels {
            // Our own PDF failing its separation, writing or preflight is cardrender's defect.
            let postcards = try CardRenderFailure.during(.encoding, file: photo.name) {
                try pressPostcards(
                    press, front: pixels, spec: spec, hasBack: hasBack, title: photo.name, specFile: specFile)
            }
            front = front.withPrint(postcards[0])
            // The first back is page 2 of the front's file; each further recipient has its own.
            for index in versos.indices {
                versos[index] = versos[index].withPrint(index == 0 ? Data() : postcards[index])
            }
        }
        return RenderedCard(
            front: front, orientation: layout.orientation, frame: frame?.id, effect: effect,
            effectiveDPI: effectiveDPI,
            quality: PrintQuality(effectiveDPI: effectiveDPI, threshold: settings.qualityThreshold),
            versos: versos, warning: executed.warning, path: executor.path, renderTime: ContinuousClock.now - started,
            firstPlacement: placed)
    }

    /// Checks a back as the post will meet it (`PostalCheck`), on its print file: the JPEG
    /// decoded at half size, or the pixels of a TIFF (a press's PDF back is drawn from the
    /// same layout as vector art).
    /// - Throws: `CardRenderFailure` (`.postal`) naming the zone a back breaks: the layout keeps
    ///   every zone, so a failure is cardrender's defect, and the card is not delivered broken.
    private func checkPostalZones(
        _ side: RenderedSide, back: VImage, format: CardFormat, recipient: Int?, specFile: String
    ) throws {
        let image = try CardRenderFailure.during(.postal, file: specFile) { () throws -> MemoryImage in
            if side.print.starts(with: [0xFF, 0xD8]) {
                return try side.print.withUnsafeBytes { bytes in
                    try JPEGCodec.decode(bytes, scale: 2, strict: true).image
                }
            }
            return MemoryImage(width: back.width, height: back.height, pixels: try back.eightBitPixels())
        }
        let millimetres = format.size.millimetres
        let violations = PostalCheck(width: millimetres.long, height: millimetres.short, bleed: format.bleed)
            .violations(of: image, hasAddress: recipient != nil)
        guard violations.isEmpty else {
            throw CardRenderFailure(
                stage: .postal, file: specFile,
                detail: "the back" + (recipient.map { " for recipient \($0 + 1)" } ?? "") + " breaks the post's zones: "
                    + violations.map(\.description).joined(separator: "; "))
        }
    }

    /// The PDF/X postcards of a card for `press`: one per recipient (one when the card has
    /// no recipient: the back with its message, or the photo side alone for a card without
    /// a back), each the photo side then that recipient's back. The photo is separated and
    /// encoded once for all of them. `title` (the photo's name) names the file in preflight
    /// failures only; it never enters the PDF.
    private func pressPostcards(
        _ press: PressProfile, front: MemoryImage, spec: CardSpec, hasBack: Bool, title: String, specFile: String
    ) throws -> [Data] {
        let document = PressDocument(press: press)
        let photo = try document.separate(front, quality: settings.printFile.quality)
        let name = String(title.split(separator: "/").last ?? Substring(title))
        // Every file passes the shop's checks before it leaves the renderer.
        func checked(_ pdf: [UInt8]) throws -> Data {
            let report = Preflight(press: press).check(pdf, name: name)
            guard report.passed else { throw PreflightError(file: name, failures: report.failures) }
            return Data(pdf)
        }
        // The title is not the photo's file name: the cache keys bytes, not names, so one
        // customer's file name would reach another's order through a shared cache.
        let title = "Postcard"
        guard hasBack else { return [try checked(try document.pdf(photo: photo, back: nil, title: title))] }
        let recipients: [Recipient?] = spec.recipients.isEmpty ? [nil] : spec.recipients
        return try recipients.enumerated().map { index, recipient in
            let verso = try self.verso(spec, specFile: specFile)
            let back = try verso.artwork(
                message: spec.message, sender: spec.sender, recipient: recipient, recipientIndex: index,
                format: spec.format, specFile: specFile)
            // Where the card goes, for `impose --sort destination` and the run's deposit manifest.
            var info: [(String, String)] = []
            if let recipient {
                let block = try verso.addressBlock(recipient, index: index, specFile: specFile)
                info = [
                    ("DestinationCountry", block.destination.code), ("DestinationPostcode", recipient.postcode ?? ""),
                    ("DestinationName", recipient.name), ("MailClass", spec.format.mailClass.rawValue),
                ]
            }
            let pdf = try checked(try document.pdf(photo: photo, back: back, title: title, info: info))
            // The back on the PDF itself: what its page paints, against the post's zones.
            let violations = PostalCheck.violations(
                ofPDF: Array(pdf), name: name, page: 1, hasAddress: recipient != nil)
            guard violations.isEmpty else {
                throw CardRenderFailure(
                    stage: .postal, file: specFile,
                    detail: "the PDF back" + (recipient == nil ? "" : " for recipient \(index + 1)")
                        + " breaks the post's zones: " + violations.map(\.description).joined(separator: "; "))
            }
            return pdf
        }
    }

    /// The spec as the renderer takes it (a press's card format, an automatic placement
    /// resolved), its frame, its plan, and the automatic placement chosen, after every check
    /// that needs no pixels.
    /// - Parameter placing: resolve an automatic placement (which decodes the photo); when
    ///   false it is laid out as `.cover`, for checks that must cost no pixel work.
    func prepare(photo: ImageData, spec: CardSpec, specFile: String, placing: Bool = true) throws -> (
        CardSpec, FrameDesign?, CardPlan, FirstPlacement?
    ) {
        var spec = spec
        if let press = settings.printFile.press { spec.format = press.cardFormat }
        let header = try photo.photoHeader(policy: settings.policy)
        // The spec's limits and its text before any pixel work: a card refused for its spec
        // costs no decode (the photo's header, read just above, is checked first).
        try limits.check(spec, maxPixels: settings.policy.maxPixels, specFile: specFile)
        try verso(spec, specFile: specFile).check(
            message: spec.message, sender: spec.sender, recipients: spec.recipients, format: spec.format,
            specFile: specFile)
        let frame = try resolveFrame(spec, specFile: specFile)
        var placed: FirstPlacement?
        if spec.placement == .automatic, placing {
            let layout = try CardLayout(spec: spec, frame: frame, photo: header, specFile: specFile)
            placed = try FirstPlacement.choose(
                photo: photo, upright: layout.photo, card: layout.card,
                window: PixelRect(
                    x: layout.window.x, y: layout.window.y, width: layout.window.width, height: layout.window.height),
                policy: settings.policy)
            spec.placement = placed!.placement
        }
        let plan = try CardPlan(
            spec: spec, photo: photo, header: header, frame: frame,
            effect: spec.effect ?? frame?.effect.map { ColourEffect($0) } ?? .normal,
            art: { layout in
                try frame.map { frame in
                    try catalogue!.overlay(
                        frame, width: layout.trim.width, height: layout.trim.height, bleed: layout.bleed)
                }
            }, settings: settings, specFile: specFile)
        return (spec, frame, plan, placed)
    }

    /// The back's renderer for `spec`: the country it is posted from, its code.
    /// - Throws: `CardSpecError` (`backCode`) for a code too long for a symbol.
    func verso(_ spec: CardSpec, specFile: String) throws -> VersoRenderer {
        do {
            return VersoRenderer(postedFrom: settings.postedFrom, code: try spec.backCode.map(DataMatrix.init(bytes:)))
        } catch {
            throw CardSpecError(file: specFile, field: "backCode", problem: "cannot be drawn: \(error).")
        }
    }

    /// The plan of `plan`'s sample (`CardPlan.init(sampleOf:art:)`), with `frame`'s art at the
    /// sample's size.
    func samplePlan(of plan: CardPlan, frame: FrameDesign?) throws -> CardPlan {
        try CardPlan(sampleOf: plan) { layout in
            try frame.map { frame in
                try catalogue!.overlay(frame, width: layout.trim.width, height: layout.trim.height, bleed: layout.bleed)
            }
        }
    }

    /// Where `photo` would start in `spec`'s window (its frame, size or press): the placement
    /// `"transform": "auto"` resolves to, and why. The spec's own placement is ignored.
    /// - Throws: what `render` throws for the photo's header, the spec's frame and limits, and
    ///   a photo that does not decode.
    public func firstPlacement(photo: ImageData, spec: CardSpec, specFile: String) throws -> FirstPlacement {
        var spec = spec
        spec.placement = .automatic
        return try prepare(photo: photo, spec: spec, specFile: specFile).3!
    }

    private func resolveFrame(_ spec: CardSpec, specFile: String) throws -> FrameDesign? {
        guard let id = spec.frame else { return nil }
        guard let frame = catalogue?.frame(id) else {
            let example = catalogue?.frames.first?.id ?? "travel/airmail"
            throw CardSpecError.expected(
                "a frame id from the catalogue such as \(example) (see `cardrender frames`)", at: "frame",
                received: .string(id), in: specFile)
        }
        return frame
    }
}
