import VipsKit

/// Lays out the back of a postcard: the message on the left, a dividing rule, a stamp box
/// top right and the address on ruled lines bottom right, at print size.
///
/// The back is always landscape (a portrait card's back is printed turned, as postcards
/// are); size, dpi and bleed are the front's. Text is rendered by Pango through libvips
/// from the fonts' files, wrapped by cardrender itself so that it knows how many lines the
/// message makes.
public struct VersoRenderer: Sendable {
    /// Ink of the rules and the stamp box.
    static let ruleGrey: [Double] = [150, 150, 150]

    public init() {}

    /// The finished back, with its dpi set: message (if any) and the address of `recipient`
    /// (an empty address block when nil).
    /// - Throws: `CardSpecError` for a message that makes more than 12 lines or does not
    ///   fit, or an address line too long for the block; `VipsError`.
    public func render(
        message: CardMessage?, recipient: Recipient?, recipientIndex: Int, format: CardFormat, specFile: String
    ) throws -> VImage {
        let trim = format.trimPixels(.landscape)
        let (width, height) = (trim.width, trim.height)
        let mm = { (value: Double) in format.pixels(value) }
        let margin = mm(6)
        let divider = Int(Double(width) * 0.56)
        let stamp = (width: mm(24), height: mm(30))
        let ruleLeft = divider + mm(8)
        let ruleWidth = width - margin - ruleLeft
        let ruleSpacing = mm(12)
        let firstRule = height - margin - 4 * ruleSpacing - mm(4)
        var rectangles: [(x: Int, y: Int, width: Int, height: Int, ink: [Double])] = [
            (divider, margin, max(2, mm(0.5)), height - 2 * margin, Self.ruleGrey)
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
            let area = (x: margin, y: margin, width: divider - 2 * margin, height: height - 2 * margin)
            let block = try layOut(message, areaWidth: area.width, dpi: format.dpi, specFile: specFile)
            guard block.height <= area.height else {
                throw CardSpecError(
                    file: specFile, field: "message.text",
                    problem: "does not fit the message area at size \(message.size): it needs \(block.height) pixels "
                        + "of \(area.height); use a smaller size or fewer lines.")
            }
            let x: Int
            switch message.align {
            case .left: x = area.x
            case .centre: x = area.x + (area.width - block.width) / 2
            case .right: x = area.x + area.width - block.width
            }
            card = try ink(card, mask: block, at: (x, area.y), colour: message.colour.rgb)
        }
        if let recipient {
            let field = "recipients[\(recipientIndex)]"
            let names =
                ["name", "address1"] + (recipient.address2 == nil ? [] : ["address2"]) + ["postcode", "country"]
            for (index, text) in recipient.lines.enumerated() {
                let mask = try VImage.text(
                    VImage.escapingMarkup(text), font: "\(CardMessage.Font.sans.family) 12",
                    fontFile: CardMessage.Font.sans.file, dpi: format.dpi)
                guard mask.width <= ruleWidth else {
                    throw CardSpecError(
                        file: specFile, field: field + "." + names[index],
                        problem: "is too long for the address block (\(mask.width) pixels of \(ruleWidth) at 12 pt).")
                }
                let ruleY = firstRule + index * ruleSpacing
                card = try ink(
                    card, mask: mask, at: (ruleLeft + mm(1), ruleY - mask.height - mm(1.5)), colour: [0, 0, 0])
            }
        }
        let bleed = format.bleedPixels
        if bleed > 0 {
            card = try card.embedded(
                x: bleed, y: bleed, width: width + 2 * bleed, height: height + 2 * bleed, background: [255, 255, 255])
        }
        return try card.withResolution(dotsPerInch: Double(format.dpi)).inMemory()
    }

    /// The message's text as one 8-bit mask, wrapped to `areaWidth` by whole words (and at
    /// the customer's line breaks), lines aligned as asked.
    /// - Throws: `CardSpecError` (`message.text`) when it makes more than 12 lines or holds a
    ///   word wider than the area; `VipsError`.
    /// libvips: `vips_text` (Pango), once per candidate line to measure, once for the block.
    public func layOut(_ message: CardMessage, areaWidth: Int, dpi: Int, specFile: String) throws -> VImage {
        let font = "\(message.font.family) \(message.size)"
        func width(_ text: String) throws -> Int {
            text.isEmpty
                ? 0
                : try VImage.text(VImage.escapingMarkup(text), font: font, fontFile: message.font.file, dpi: dpi).width
        }
        var lines: [String] = []
        for paragraph in message.text.split(separator: "\n", omittingEmptySubsequences: false) {
            let words = paragraph.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard !words.isEmpty else {
                lines.append("")
                continue
            }
            var start = 0
            while start < words.count && lines.count <= 4 * CardMessage.maxLines {
                guard try width(words[start]) <= areaWidth else {
                    throw CardSpecError(
                        file: specFile, field: "message.text",
                        problem:
                            "has the word \"\(words[start])\", too wide for the message area at size \(message.size).")
                }
                // The most words from `start` that fit on one line: a binary search, so a line
                // costs a few text renders rather than one per word.
                var (low, high) = (start + 1, words.count)
                while low < high {
                    let middle = (low + high + 1) / 2
                    if try width(words[start..<middle].joined(separator: " ")) <= areaWidth {
                        low = middle
                    } else {
                        high = middle - 1
                    }
                }
                lines.append(words[start..<low].joined(separator: " "))
                start = low
            }
            if lines.count > 4 * CardMessage.maxLines { break }  // far over the limit: stop measuring
        }
        guard lines.count <= CardMessage.maxLines else {
            let count =
                lines.count > 4 * CardMessage.maxLines ? "more than \(4 * CardMessage.maxLines)" : "\(lines.count)"
            throw CardSpecError(
                file: specFile, field: "message.text",
                problem: "makes \(count) lines in the message area at size \(message.size); "
                    + "at most \(CardMessage.maxLines) lines fit on a card.")
        }
        let alignment: VImage.TextAlignment =
            switch message.align {
            case .left: .left
            case .centre: .centre
            case .right: .right
            }
        return try VImage.text(
            VImage.escapingMarkup(lines.joined(separator: "\n")), font: font, fontFile: message.font.file,
            alignment: alignment, dpi: dpi)
    }

    /// `card` with `colour` laid where `mask` is inked, the mask's top left at `origin`.
    private func ink(_ card: VImage, mask: VImage, at origin: (Int, Int), colour: [Double]) throws -> VImage {
        let placed = try mask.embedded(
            x: origin.0, y: origin.1, width: card.width, height: card.height, background: [0])
        let paint = try VImage.solid(width: card.width, height: card.height, colour: colour)
        return try card.blended(with: paint, mask: placed)
    }
}
