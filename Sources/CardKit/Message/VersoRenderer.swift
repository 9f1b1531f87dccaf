import VipsKit

/// Lays out the back of a postcard: the message on the left, a dividing rule, a stamp box
/// top right and the address on ruled lines bottom right, at print size.
///
/// The back is always landscape (a portrait card's back is printed turned, as postcards
/// are); size, dpi and bleed are the front's. Text is laid out and drawn by Pango and cairo
/// (`TextLayout`): the chosen font from its file, then a fallback chain for other scripts
/// and emoji; a character no font has is an error, never a box.
public struct VersoRenderer: Sendable {
    /// Ink of the rules and the stamp box.
    static let ruleGrey: [Double] = [150, 150, 150]

    public init() {}

    /// Where things sit on the back, in pixels of the trimmed (landscape) card.
    private struct Geometry {
        let width: Int, height: Int, margin: Int, divider: Int
        let ruleLeft: Int, ruleWidth: Int, ruleSpacing: Int, firstRule: Int
        var messageWidth: Int { divider - 2 * margin }
        var messageHeight: Int { height - 2 * margin }

        init(format: CardFormat) {
            let trim = format.trimPixels(.landscape)
            (width, height) = (trim.width, trim.height)
            let mm = { (value: Double) in format.pixels(value) }
            margin = mm(6)
            divider = Int(Double(width) * 0.56)
            ruleLeft = divider + mm(8)
            ruleWidth = width - margin - ruleLeft
            ruleSpacing = mm(12)
            firstRule = height - margin - 4 * ruleSpacing - mm(4)
        }
    }

    /// The backs of a card, one per recipient (one with an empty address block when there
    /// are none), with their dpi set. The rules and the message are laid out and drawn once
    /// and shared by every back; only the addresses differ.
    /// - Throws: as `render(message:recipient:recipientIndex:format:specFile:)`.
    public func render(message: CardMessage?, recipients: [Recipient], format: CardFormat, specFile: String)
        throws -> [VImage]
    {
        let base = try blank(message: message, format: format, specFile: specFile)
        let list: [Recipient?] = recipients.isEmpty ? [nil] : recipients
        return try list.enumerated().map { index, recipient in
            try finish(base, recipient: recipient, recipientIndex: index, format: format, specFile: specFile)
        }
    }

    /// The finished back, with its dpi set: message (if any) and the address of `recipient`
    /// (an empty address block when nil).
    /// - Throws: `CardSpecError` for a character no font has, a message that makes more than
    ///   12 lines or does not fit, or an address line too long for the block; `VipsError`.
    public func render(
        message: CardMessage?, recipient: Recipient?, recipientIndex: Int, format: CardFormat, specFile: String
    ) throws -> VImage {
        try finish(
            blank(message: message, format: format, specFile: specFile), recipient: recipient,
            recipientIndex: recipientIndex, format: format, specFile: specFile)
    }

    /// The back without an address: rules, stamp box and the message, in memory.
    private func blank(message: CardMessage?, format: CardFormat, specFile: String) throws -> VImage {
        let geometry = Geometry(format: format)
        let (width, height, margin) = (geometry.width, geometry.height, geometry.margin)
        let mm = { (value: Double) in format.pixels(value) }
        let stamp = (width: mm(24), height: mm(30))
        let (ruleLeft, ruleWidth, ruleSpacing, firstRule) = (
            geometry.ruleLeft, geometry.ruleWidth, geometry.ruleSpacing, geometry.firstRule
        )
        var rectangles: [(x: Int, y: Int, width: Int, height: Int, ink: [Double])] = [
            (geometry.divider, margin, max(2, mm(0.5)), height - 2 * margin, Self.ruleGrey)
        ]
        let (stampX, stampY, line) = (width - margin - stamp.width, margin, max(2, mm(0.4)))
        rectangles += [
            (stampX, stampY, stamp.width, line, Self.ruleGrey),
            (stampX, stampY + stamp.height - line, stamp.width, line, Self.ruleGrey),
            (stampX, stampY, line, stamp.height, Self.ruleGrey),
            (stampX + stamp.width - line, stampY, line, stamp.height, Self.ruleGrey),
        ]
        for index in 0..<5 {
            rectangles.append((ruleLeft, firstRule + index * ruleSpacing, ruleWidth, max(2, mm(0.3)), [170, 170, 170]))
        }
        var card = try VImage.solid(width: width, height: height, colour: [255, 255, 255]).drawingRectangles(rectangles)

        if let message {
            let block = try layOut(
                message, areaWidth: geometry.messageWidth, areaHeight: geometry.messageHeight, dpi: format.dpi,
                specFile: specFile, draw: true)
            card = try ink(card, block: block, at: (margin, margin))
        }
        return try card.inMemory()
    }

    /// `base` with the address of `recipient` on its rules, bleed added, dpi set.
    private func finish(
        _ base: VImage, recipient: Recipient?, recipientIndex: Int, format: CardFormat, specFile: String
    ) throws -> VImage {
        let geometry = Geometry(format: format)
        let (width, height) = (geometry.width, geometry.height)
        let mm = { (value: Double) in format.pixels(value) }
        var card = base
        if let recipient {
            for (index, line) in addressLines(recipient, index: recipientIndex).enumerated() {
                let block = try layOutAddress(
                    line, width: geometry.ruleWidth, dpi: format.dpi, specFile: specFile, draw: true)
                let ruleY = geometry.firstRule + index * geometry.ruleSpacing
                let ruleLeft = geometry.ruleLeft
                card = try ink(card, block: block, at: (ruleLeft + mm(1), ruleY - block.height - mm(1.5)))
            }
        }
        let bleed = format.bleedPixels
        if bleed > 0 {
            card = try card.embedded(
                x: bleed, y: bleed, width: width + 2 * bleed, height: height + 2 * bleed, background: [255, 255, 255])
        }
        return try card.withResolution(dotsPerInch: Double(format.dpi)).inMemory()
    }

    /// The back for `recipient` as vector art (a press PDF's second page): the same geometry,
    /// layout and checks as `render`, the text as glyph outlines.
    /// - Throws: as `render(message:recipient:recipientIndex:format:specFile:)`.
    public func artwork(
        message: CardMessage?, recipient: Recipient?, recipientIndex: Int, format: CardFormat, specFile: String
    ) throws -> VersoArtwork {
        let geometry = Geometry(format: format)
        let (width, height, margin) = (geometry.width, geometry.height, geometry.margin)
        let bleed = Double(format.bleedPixels)
        let mm = { (value: Double) in format.pixels(value) }
        var fills: [VersoArtwork.Fill] = []
        var pictures: [VersoArtwork.Picture] = []
        func rectangle(_ x: Int, _ y: Int, _ width: Int, _ height: Int, _ rgb: [Double]) {
            fills.append(.init(path: "\(x) \(y) \(width) \(height) re\n", origin: (bleed, bleed), rgb: rgb))
        }
        func text(_ outline: TextLayout.Outline, at origin: (x: Int, y: Int), rgb: [Double]) {
            let (x, y) = (bleed + Double(origin.x), bleed + Double(origin.y))
            if !outline.path.isEmpty { fills.append(.init(path: outline.path, origin: (x, y), rgb: rgb)) }
            for image in outline.images {
                pictures.append(
                    .init(x: x + image.x, y: y + image.y, width: image.width, height: image.height, rgba: image.rgba))
            }
        }
        let stamp = (width: mm(24), height: mm(30))
        rectangle(geometry.divider, margin, max(2, mm(0.5)), height - 2 * margin, Self.ruleGrey)
        let (stampX, stampY, line) = (width - margin - stamp.width, margin, max(2, mm(0.4)))
        rectangle(stampX, stampY, stamp.width, line, Self.ruleGrey)
        rectangle(stampX, stampY + stamp.height - line, stamp.width, line, Self.ruleGrey)
        rectangle(stampX, stampY, line, stamp.height, Self.ruleGrey)
        rectangle(stampX + stamp.width - line, stampY, line, stamp.height, Self.ruleGrey)
        for index in 0..<5 {
            rectangle(
                geometry.ruleLeft, geometry.firstRule + index * geometry.ruleSpacing, geometry.ruleWidth,
                max(2, mm(0.3)), [170, 170, 170])
        }
        if let message {
            // Checked exactly as the raster back (lines, words, height, missing characters).
            _ = try layOut(
                message, areaWidth: geometry.messageWidth, areaHeight: geometry.messageHeight, dpi: format.dpi,
                specFile: specFile, draw: false)
            let alignment: TextLayout.Alignment =
                switch message.align {
                case .left: .left
                case .centre: .centre
                case .right: .right
                }
            let outline = try TextLayout.outline(
                message.text, font: message.font.description(size: message.size), dpi: format.dpi,
                wrapWidth: geometry.messageWidth, alignment: alignment)
            text(outline, at: (margin, margin), rgb: message.colour.rgb)
        }
        if let recipient {
            for (index, line) in addressLines(recipient, index: recipientIndex).enumerated() {
                let block = try layOutAddress(
                    line, width: geometry.ruleWidth, dpi: format.dpi, specFile: specFile, draw: false)
                let outline = try TextLayout.outline(
                    line.text, font: CardMessage.Font.sans.description(size: 12), dpi: format.dpi, wrapWidth: nil)
                let ruleY = geometry.firstRule + index * geometry.ruleSpacing
                text(outline, at: (geometry.ruleLeft + mm(1), ruleY - block.height - mm(1.5)), rgb: [0, 0, 0])
            }
        }
        return VersoArtwork(
            width: width + 2 * format.bleedPixels, height: height + 2 * format.bleedPixels, dpi: format.dpi,
            fills: fills, pictures: pictures)
    }

    /// Checks, without drawing, everything `render` would refuse in the text: characters no
    /// font has, the line count, words too wide, a message taller than its area, address
    /// lines too long. Cheap (a Pango layout per field), so a card fails before its photo is
    /// decoded.
    /// - Throws: `CardSpecError` naming the field.
    public func check(message: CardMessage?, recipients: [Recipient], format: CardFormat, specFile: String) throws {
        let geometry = Geometry(format: format)
        if let message {
            _ = try layOut(
                message, areaWidth: geometry.messageWidth, areaHeight: geometry.messageHeight, dpi: format.dpi,
                specFile: specFile, draw: false)
        }
        for (index, recipient) in recipients.enumerated() {
            for line in addressLines(recipient, index: index) {
                _ = try layOutAddress(line, width: geometry.ruleWidth, dpi: format.dpi, specFile: specFile, draw: false)
            }
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
        let alignment: TextLayout.Alignment =
            switch message.align {
            case .left: .left
            case .centre: .centre
            case .right: .right
            }
        let block = try TextLayout.layOut(
            message.text, font: message.font.description(size: message.size), dpi: dpi, wrapWidth: areaWidth,
            alignment: alignment, colour: message.colour.rgb, draw: draw)
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

    /// One line of an address, with the spec field each part comes from.
    private struct AddressLine {
        var text: String
        /// The fields printed on this line, e.g. `recipients[0].postcode` and `.city`.
        var fields: [(name: String, text: String)]
    }

    /// The address as printed (`Recipient.lines`), each line with its fields.
    private func addressLines(_ recipient: Recipient, index: Int) -> [AddressLine] {
        let prefix = "recipients[\(index)]."
        var lines = [
            AddressLine(text: recipient.name, fields: [(prefix + "name", recipient.name)]),
            AddressLine(text: recipient.address1, fields: [(prefix + "address1", recipient.address1)]),
        ]
        if let address2 = recipient.address2 {
            lines.append(AddressLine(text: address2, fields: [(prefix + "address2", address2)]))
        }
        lines.append(
            AddressLine(
                text: "\(recipient.postcode) \(recipient.city)",
                fields: [(prefix + "postcode", recipient.postcode), (prefix + "city", recipient.city)]))
        let country = recipient.country.uppercased()
        lines.append(AddressLine(text: country, fields: [(prefix + "country", country)]))
        return lines
    }

    /// One address line in the address font (sans, 12 pt), unwrapped.
    /// - Throws: `CardSpecError` naming the field for a character no font has, or a line
    ///   wider than the ruled lines.
    private func layOutAddress(_ line: AddressLine, width: Int, dpi: Int, specFile: String, draw: Bool) throws
        -> TextLayout.Block
    {
        let font = CardMessage.Font.sans
        try TextLayout.register(fontFile: font.file)
        let description = font.description(size: 12)
        let block = try TextLayout.layOut(line.text, font: description, dpi: dpi, wrapWidth: nil, draw: draw)
        if block.missingCharacter != nil {
            // Name the field the character is in.
            for (field, text) in line.fields {
                let part = try TextLayout.layOut(text, font: description, dpi: dpi, wrapWidth: nil, draw: false)
                try Self.refuseMissing(part, field: field, specFile: specFile)
            }
            try Self.refuseMissing(block, field: line.fields[0].name, specFile: specFile)
        }
        guard block.width <= width else {
            throw CardSpecError(
                file: specFile, field: line.fields[0].name,
                problem: "is too long for the address block (\(block.width) pixels of \(width) at 12 pt).")
        }
        return block
    }

    /// Refuses a block in which Pango drew a character as a box.
    private static func refuseMissing(_ block: TextLayout.Block, field: String, specFile: String) throws {
        guard let scalar = block.missingCharacter else { return }
        let code = String(scalar.value, radix: 16, uppercase: true)
        throw CardSpecError(
            file: specFile, field: field,
            problem: "has the character U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code), "
                + "which no installed font can draw; remove it (fonts tried: the chosen font, then "
                + "Noto for other scripts and emoji, then every other font installed).")
    }

    /// `card` with the drawn `block` laid over it, the block's logical top left at `origin`.
    private func ink(_ card: VImage, block: TextLayout.Block, at origin: (x: Int, y: Int)) throws -> VImage {
        guard let ink = block.ink else { return card }
        let (x, y) = (origin.x - ink.origin.x, origin.y - ink.origin.y)
        let alpha = try ink.alpha.embedded(x: x, y: y, width: card.width, height: card.height, background: [0])
        let colour = try ink.colour.embedded(
            x: x, y: y, width: card.width, height: card.height, background: [0, 0, 0])
        return try card.blended(with: colour, mask: alpha)
    }
}
