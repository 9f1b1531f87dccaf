import Mail
import PressKit
import VipsKit

/// Lays out the back of a postcard by the posts' rules: the message (and the sender, small)
/// on the left half, a dividing rule, the stamp box in the franking zone top right and the
/// address written for its destination bottom right, clear of the strip along the bottom
/// where sorting machines print their barcode (`PostalZones`, `AddressBlock`).
///
/// The back is always landscape (a portrait card's back is printed turned, as postcards
/// are); size, dpi and bleed are the front's. Text is laid out and drawn by Pango and cairo
/// (`TextLayout`): the chosen font from its file, then a fallback chain for other scripts
/// and emoji; a character no font has is an error, never a box.
public struct VersoRenderer: Sendable {
    /// Ink of the divider and the stamp box.
    static let ruleGrey: [Double] = [150, 150, 150]
    /// The address's type size: 12 pt, shrunk in half points to fit, never below 9 pt.
    static let addressSizes: [Double] = stride(from: 12.0, through: 9.0, by: -0.5).map { $0 }
    /// A line still too wide at 9 pt is condensed to fit, never below this share of its width.
    static let narrowest = 0.6
    /// The sender's type size.
    static let senderSize = 7.0

    /// The country the cards are posted in (ISO alpha-2): it decides the country line's
    /// language and whether a card is domestic.
    public var postedFrom: String

    /// The card's code (`CardSpec.backCode`), drawn in the bottom right corner of the message
    /// area (`Geometry.codeBox`: against the gutter left of the divider, just above the coding
    /// strip), or none.
    public var code: DataMatrix?

    /// A module of the code: 0.6 mm, whole print pixels (7 at 300 dpi), so that a phone photo
    /// or a 150 dpi scan of the card still has 3 pixels or more a module.
    static let codeModule = 0.6

    public init(postedFrom: String = "FR", code: DataMatrix? = nil) {
        self.postedFrom = postedFrom
        self.code = code
    }

    /// The zones and rules of the back in print pixels of the trimmed (landscape) card.
    struct Geometry {
        let format: CardFormat
        let zones: PostalZones
        let width: Int, height: Int

        init(format: CardFormat) {
            self.format = format
            let millimetres = format.size.millimetres
            zones = PostalZones(width: millimetres.long, height: millimetres.short)
            let trim = format.trimPixels(.landscape)
            (width, height) = (trim.width, trim.height)
        }

        func px(_ millimetres: Double) -> Int { format.pixels(millimetres) }
        func px(_ rect: PostalZones.Rect) -> (x: Int, y: Int, width: Int, height: Int) {
            let (x, y) = (px(rect.x), px(rect.y))
            return (x, y, px(rect.maxX) - x, px(rect.maxY) - y)
        }
        /// The code's box in print pixels (a whole number of pixels a module), or nil.
        func codeBox(_ code: DataMatrix?) -> (x: Int, y: Int, width: Int, height: Int, module: Int)? {
            guard let code else { return nil }
            let module = max(2, Int((VersoRenderer.codeModule * Double(format.dpi) / 25.4).rounded()))
            let side = module * code.side
            let area = px(zones.messageArea)
            return (area.x + area.width - side, area.y + area.height - side, side, side, module)
        }
        /// The code's dark modules as rectangles in print pixels.
        func codeRectangles(_ code: DataMatrix?) -> [(x: Int, y: Int, width: Int, height: Int)] {
            guard let code, let box = codeBox(code) else { return [] }
            return code.darkRuns.map {
                (box.x + $0.column * box.module, box.y + $0.row * box.module, $0.length * box.module, box.module)
            }
        }
        /// The divider and the stamp box's four sides.
        var rules: [(x: Int, y: Int, width: Int, height: Int)] {
            let divider = px(zones.dividerRule)
            let stamp = px(zones.stampBox)
            let line = max(2, px(0.4))
            return [
                (divider.x, divider.y, max(2, px(0.5)), divider.height),
                (stamp.x, stamp.y, stamp.width, line), (stamp.x, stamp.y + stamp.height - line, stamp.width, line),
                (stamp.x, stamp.y, line, stamp.height), (stamp.x + stamp.width - line, stamp.y, line, stamp.height),
            ]
        }
    }

    /// A block of address lines fitted to its zone: each line's text, size and place.
    struct PlacedBlock {
        struct Line {
            var text: String
            var fields: [String]
            var x: Int, y: Int
            /// Horizontal scale (1 unless condensed to fit at the smallest size).
            var condensed: Double
        }
        var lines: [Line]
        var points: Double
    }

    /// The backs of a card, one per recipient (one with no address when there are none),
    /// with their dpi set. The rules, sender and message are laid out and drawn once and
    /// shared by every back; only the addresses differ.
    /// - Throws: as `render(message:recipient:recipientIndex:format:specFile:)`.
    public func render(
        message: CardMessage?, sender: Recipient? = nil, recipients: [Recipient], format: CardFormat, specFile: String
    ) throws -> [VImage] {
        let base = try blank(message: message, sender: sender, format: format, specFile: specFile)
        let list: [Recipient?] = recipients.isEmpty ? [nil] : recipients
        return try list.enumerated().map { index, recipient in
            try finish(base, recipient: recipient, recipientIndex: index, format: format, specFile: specFile)
        }
    }

    /// The finished back, with its dpi set: message and sender (if any) and the address of
    /// `recipient` (none when nil).
    /// - Throws: `CardSpecError` for a character no font has, a message that makes more than
    ///   12 lines or does not fit, or an address the destination's post would refuse; `VipsError`.
    public func render(
        message: CardMessage?, sender: Recipient? = nil, recipient: Recipient?, recipientIndex: Int,
        format: CardFormat, specFile: String
    ) throws -> VImage {
        try finish(
            blank(message: message, sender: sender, format: format, specFile: specFile), recipient: recipient,
            recipientIndex: recipientIndex, format: format, specFile: specFile)
    }

    /// The back without an address: rules, stamp box, sender and message, in memory.
    func blank(message: CardMessage?, sender: Recipient?, format: CardFormat, specFile: String) throws
        -> VImage
    {
        let geometry = Geometry(format: format)
        var card = try VImage.solid(width: geometry.width, height: geometry.height, colour: [255, 255, 255])
            .drawingRectangles(
                geometry.rules.map { ($0.x, $0.y, $0.width, $0.height, Self.ruleGrey) }
                    + geometry.codeRectangles(code).map { ($0.x, $0.y, $0.width, $0.height, [0, 0, 0]) })
        let senderBlock = try sender.map { try placeSender($0, geometry: geometry, specFile: specFile) }
        if let senderBlock {
            card = try draw(senderBlock, on: card, dpi: format.dpi)
        }
        if let message {
            let area = messageArea(geometry, below: senderBlock)
            let block = try layOut(
                message, areaWidth: area.width, areaHeight: area.height, dpi: format.dpi, specFile: specFile,
                draw: true)
            card = try ink(card, block: block, at: (area.x, area.y), condensed: 1)
        }
        return try card.inMemory()
    }

    /// `base` with the address of `recipient`, bleed added, dpi set.
    func finish(
        _ base: VImage, recipient: Recipient?, recipientIndex: Int, format: CardFormat, specFile: String
    ) throws -> VImage {
        let geometry = Geometry(format: format)
        var card = base
        if let recipient {
            let block = try placeAddress(recipient, index: recipientIndex, geometry: geometry, specFile: specFile)
            card = try draw(block, on: card, dpi: format.dpi)
        }
        let bleed = format.bleedPixels
        if bleed > 0 {
            card = try card.embedded(
                x: bleed, y: bleed, width: geometry.width + 2 * bleed, height: geometry.height + 2 * bleed,
                background: [255, 255, 255])
        }
        return try card.withResolution(dotsPerInch: Double(format.dpi)).inMemory()
    }

    /// The lines of `block` drawn in black on `card`.
    func draw(_ block: PlacedBlock, on card: VImage, dpi: Int) throws -> VImage {
        var card = card
        for line in block.lines {
            let drawn = try TextLayout.layOut(
                line.text, font: Self.addressFont(block.points), dpi: dpi, wrapWidth: nil, draw: true)
            card = try ink(card, block: drawn, at: (line.x, line.y), condensed: line.condensed)
        }
        return card
    }

    /// The back for `recipient` as vector art (a press PDF's second page): the same geometry,
    /// layout and checks as `render`, the text as glyph outlines.
    /// - Throws: as `render(message:recipient:recipientIndex:format:specFile:)`.
    public func artwork(
        message: CardMessage?, sender: Recipient? = nil, recipient: Recipient?, recipientIndex: Int,
        format: CardFormat, specFile: String
    ) throws -> VersoArtwork {
        let geometry = Geometry(format: format)
        let bleed = Double(format.bleedPixels)
        var fills: [VersoArtwork.Fill] = []
        var pictures: [VersoArtwork.Picture] = []
        func text(_ outline: TextLayout.Outline, at origin: (x: Int, y: Int), rgb: [Double], condensed: Double) {
            let (x, y) = (bleed + Double(origin.x), bleed + Double(origin.y))
            if !outline.path.isEmpty {
                fills.append(.init(path: outline.path, origin: (x, y), rgb: rgb, scaleX: condensed))
            }
            for image in outline.images {
                pictures.append(
                    .init(
                        x: x + image.x * condensed, y: y + image.y, width: image.width, height: image.height,
                        rgba: image.rgba))
            }
        }
        for rule in geometry.rules {
            fills.append(
                .init(
                    path: "\(rule.x) \(rule.y) \(rule.width) \(rule.height) re\n", origin: (bleed, bleed),
                    rgb: Self.ruleGrey))
        }
        let modules = geometry.codeRectangles(code)
        if !modules.isEmpty {
            fills.append(
                .init(
                    path: modules.map { "\($0.x) \($0.y) \($0.width) \($0.height) re\n" }.joined(),
                    origin: (bleed, bleed), rgb: [0, 0, 0]))
        }
        func addressText(_ block: PlacedBlock) throws {
            for line in block.lines {
                let outline = try TextLayout.outline(
                    line.text, font: Self.addressFont(block.points), dpi: format.dpi, wrapWidth: nil)
                text(outline, at: (line.x, line.y), rgb: [0, 0, 0], condensed: line.condensed)
            }
        }
        let senderBlock = try sender.map { try placeSender($0, geometry: geometry, specFile: specFile) }
        if let senderBlock { try addressText(senderBlock) }
        if let message {
            let area = messageArea(geometry, below: senderBlock)
            // Checked exactly as the raster back (lines, words, height, missing characters).
            _ = try layOut(
                message, areaWidth: area.width, areaHeight: area.height, dpi: format.dpi, specFile: specFile,
                draw: false)
            let outline = try TextLayout.outline(
                message.text, font: message.font.description(size: message.size), dpi: format.dpi,
                wrapWidth: area.width, alignment: Self.alignment(message))
            text(outline, at: (area.x, area.y), rgb: message.colour.rgb, condensed: 1)
        }
        if let recipient {
            try addressText(placeAddress(recipient, index: recipientIndex, geometry: geometry, specFile: specFile))
        }
        return VersoArtwork(
            width: geometry.width + 2 * format.bleedPixels, height: geometry.height + 2 * format.bleedPixels,
            dpi: format.dpi, fills: fills, pictures: pictures)
    }

    /// Checks, without drawing, everything `render` would refuse in the text: characters no
    /// font has, the line count, words too wide, a message taller than its area, addresses the
    /// destination's post would refuse or that do not fit their zone. Cheap (a Pango layout
    /// per field), so a card fails before its photo is decoded.
    /// - Throws: `CardSpecError` naming the field.
    public func check(
        message: CardMessage?, sender: Recipient? = nil, recipients: [Recipient], format: CardFormat, specFile: String
    ) throws {
        let geometry = Geometry(format: format)
        let senderBlock = try sender.map { try placeSender($0, geometry: geometry, specFile: specFile) }
        if let message {
            let area = messageArea(geometry, below: senderBlock)
            _ = try layOut(
                message, areaWidth: area.width, areaHeight: area.height, dpi: format.dpi, specFile: specFile,
                draw: false)
        }
        for (index, recipient) in recipients.enumerated() {
            _ = try placeAddress(recipient, index: index, geometry: geometry, specFile: specFile)
        }
    }

    /// The message laid out in the message area, `areaWidth` wide: wrapped by words at the
    /// area's width (and at the customer's line breaks), lines aligned as asked (mirrored for
    /// a right-to-left paragraph), in the message's colour, emoji in their own.
    /// - Throws: `CardSpecError` (`message.text`) for a character no font has, more than 12
    ///   lines, a word wider than the area, or a block taller than `areaHeight`.
    public func layOut(
        _ message: CardMessage, areaWidth: Int, areaHeight: Int = .max, dpi: Int, specFile: String, draw: Bool = true
    ) throws -> TextLayout.Block {
        let field = "message.text"
        try TextLayout.register(fontFile: message.font.file)
        let block = try TextLayout.layOut(
            message.text, font: message.font.description(size: message.size), dpi: dpi, wrapWidth: areaWidth,
            alignment: Self.alignment(message), colour: message.colour.rgb, draw: draw)
        try Self.refuseMissing(block, field: field, specFile: specFile)
        guard block.lines <= CardMessage.maxLines else {
            throw CardSpecError(
                file: specFile, field: field,
                problem: "makes \(block.lines) lines in the message area at size \(message.size); "
                    + "at most \(CardMessage.maxLines) lines fit on a card.")
        }
        if let line = block.overflowingLine {
            let words: [Substring] = line.split(separator: " ")
            let word = words.max { $0.count < $1.count }.map(String.init) ?? line
            throw CardSpecError(
                file: specFile, field: field,
                problem: "has the word \"\(word)\", too wide for the message area at size \(message.size).")
        }
        guard block.height <= areaHeight else {
            throw CardSpecError(
                file: specFile, field: field,
                problem: "does not fit the message area at size \(message.size): it needs \(block.height) pixels "
                    + "of \(areaHeight); use a smaller size or fewer lines.")
        }
        return block
    }

    /// Refuses a block in which Pango drew a character as a box.
    static func refuseMissing(_ block: TextLayout.Block, field: String, specFile: String) throws {
        guard let scalar = block.missingCharacter else { return }
        let code = String(scalar.value, radix: 16, uppercase: true)
        throw CardSpecError(
            file: specFile, field: field,
            problem: "has the character U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code), "
                + "which no installed font can draw; remove it (fonts tried: the chosen font, then "
                + "Noto for other scripts and emoji, then every other font installed).")
    }

    /// `card` with the drawn `block` laid over it, the block's logical top left at `origin`,
    /// condensed horizontally by `condensed` (1: as drawn).
    func ink(_ card: VImage, block: TextLayout.Block, at origin: (x: Int, y: Int), condensed: Double)
        throws -> VImage
    {
        guard var ink = block.ink else { return card }
        if condensed < 1 {
            func narrow(_ image: VImage) throws -> VImage {
                try image.transformed(
                    matrix: (condensed, 0, 0, 1), inputOffset: (0, 0), outputOffset: (0, 0),
                    area: (0, 0, max(1, Int((Double(image.width) * condensed).rounded(.up))), image.height),
                    interpolation: .bilinear, background: [0])
            }
            ink = (
                try narrow(ink.colour), try narrow(ink.alpha),
                (Int((Double(ink.origin.x) * condensed).rounded()), ink.origin.y)
            )
        }
        let (x, y) = (origin.x - ink.origin.x, origin.y - ink.origin.y)
        let alpha = try ink.alpha.embedded(x: x, y: y, width: card.width, height: card.height, background: [0])
        let colour = try ink.colour.embedded(
            x: x, y: y, width: card.width, height: card.height, background: [0, 0, 0])
        return try card.blended(with: colour, mask: alpha)
    }
}
