import Mail
import PressKit
import VipsKit

extension VersoRenderer {
    /// The address block of `recipient` written for its destination (`AddressBlock`).
    /// - Throws: `CardSpecError` naming `recipients[index]` and the field, in words.
    public func addressBlock(_ recipient: Recipient, index: Int, specFile: String) throws -> AddressBlock {
        try Self.written(
            recipient, postedFrom: postedFrom, owner: "recipient \(index + 1)", path: "recipients[\(index)]",
            specFile: specFile)
    }

    /// `address` as an `AddressBlock`, its problems as `CardSpecError`s.
    static func written(_ address: Recipient, postedFrom: String, owner: String, path: String, specFile: String)
        throws -> AddressBlock
    {
        guard let origin = Country.named(code: postedFrom) else {
            throw CardSpecError(file: specFile, field: "postedFrom", problem: "\(postedFrom) is not a country code.")
        }
        do {
            return try AddressBlock(address, postedFrom: origin)
        } catch {
            throw CardSpecError(
                file: specFile, field: error.field.map { path + "." + $0 } ?? path,
                problem: error.sentence(owner: owner))
        }
    }

    /// The message area: the left half above the coding strip, and above the sender's block
    /// and the card's code.
    func messageArea(_ geometry: Geometry, below sender: PlacedBlock?) -> (
        x: Int, y: Int, width: Int, height: Int
    ) {
        let area = geometry.px(geometry.zones.messageArea)
        let tops = [sender?.lines.first?.y, geometry.codeBox(code)?.y].compactMap { $0 }
        guard let top = tops.min() else { return area }
        return (area.x, area.y, area.width, max(1, top - geometry.px(3) - area.y))
    }

    /// The sender's lines, small, at the bottom of the left half, above the coding strip.
    func placeSender(_ sender: Recipient, geometry: Geometry, specFile: String) throws -> PlacedBlock {
        let block = try Self.written(
            sender, postedFrom: postedFrom, owner: "the sender", path: "sender", specFile: specFile)
        let label = (Country.named(code: postedFrom)?.writesFrench ?? false) ? "Expéditeur :" : "From:"
        let lines = [AddressBlock.Line(text: label, fields: ["name"])] + block.lines
        let area = geometry.px(geometry.zones.messageArea)
        // Left of the card's code, with the gutter between them.
        let width = geometry.codeBox(code).map { $0.x - geometry.px(PostalZones.gutter) - area.x } ?? area.width
        return try fit(
            lines, of: sender, sizes: [Self.senderSize], left: area.x, width: width,
            bottom: area.y + area.height, minTop: area.y, owner: "the sender", path: "sender", dpi: geometry.format.dpi,
            specFile: specFile)
    }

    /// The recipient's lines in the address zone, bottom right, left-aligned.
    func placeAddress(_ recipient: Recipient, index: Int, geometry: Geometry, specFile: String) throws
        -> PlacedBlock
    {
        let block = try addressBlock(recipient, index: index, specFile: specFile)
        let zone = geometry.px(geometry.zones.addressZone)
        // A millimetre inside the zone on the left and right: a glyph's ink may overhang its box.
        let inset = geometry.px(1)
        return try fit(
            block.lines, of: recipient, sizes: Self.addressSizes, left: zone.x + inset, width: zone.width - 2 * inset,
            bottom: zone.y + zone.height - geometry.px(1), minTop: zone.y, owner: "recipient \(index + 1)",
            path: "recipients[\(index)]", dpi: geometry.format.dpi, specFile: specFile)
    }

    /// `lines` at the largest of `sizes` at which every line is `width` wide at most and the
    /// block fits between `minTop` and `bottom`; at the smallest size a line still too wide is
    /// condensed (to `narrowest` at most).
    /// - Throws: `CardSpecError` for a character no font has (naming the field), or a block
    ///   that cannot fit.
    func fit(
        _ lines: [AddressBlock.Line], of address: Recipient?, sizes: [Double], left: Int, width: Int, bottom: Int,
        minTop: Int, owner: String, path: String, dpi: Int, specFile: String
    ) throws -> PlacedBlock {
        try TextLayout.register(fontFile: CardMessage.Font.sans.file)
        for (sizeIndex, points) in sizes.enumerated() {
            let font = Self.addressFont(points)
            var measured: [(width: Int, height: Int)] = []
            for line in lines {
                let block = try TextLayout.layOut(line.text, font: font, dpi: dpi, wrapWidth: nil, draw: false)
                if let scalar = block.missingCharacter {
                    // Name the field the character is in.
                    let field = line.fields.first { name in
                        address?.fields.first { $0.name == name }?.text.unicodeScalars.contains(scalar) ?? false
                    }
                    try Self.refuseMissing(
                        block, field: path + "." + (field ?? line.fields.first ?? "name"), specFile: specFile)
                }
                measured.append((block.width, block.height))
            }
            let total = measured.reduce(0) { $0 + $1.height }
            let isLast = sizeIndex == sizes.count - 1
            let widest = measured.map(\.width).max() ?? 0
            guard widest <= width || isLast, total <= bottom - minTop || isLast else { continue }
            guard total <= bottom - minTop else {
                throw CardSpecError(
                    file: specFile, field: path,
                    problem: "\(owner): the address is too tall for its zone at \(Self.points(points)) pt; "
                        + "leave out a line.")
            }
            var placed: [PlacedBlock.Line] = []
            var y = bottom - total
            for (line, size) in zip(lines, measured) {
                let condensed = size.width > width ? Double(width) / Double(size.width) : 1
                guard condensed >= Self.narrowest else {
                    let field = line.fields.first ?? "name"
                    throw CardSpecError(
                        file: specFile, field: path + "." + field,
                        problem: "\(owner), \(AddressProblem.label(field)): the line \"\(line.text)\" is too wide "
                            + "for the address zone even at \(Self.points(points)) pt; shorten it.")
                }
                placed.append(.init(text: line.text, fields: line.fields, x: left, y: y, condensed: condensed))
                y += size.height
            }
            return PlacedBlock(lines: placed, points: points)
        }
        throw CardSpecError(file: specFile, field: path, problem: "\(owner): the address has no sizes to fit.")
    }

    /// "9" or "10.5".
    static func points(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// The address font (Liberation Sans and its fallbacks) at `points`.
    static func addressFont(_ points: Double) -> String {
        let font = CardMessage.Font.sans
        return ([font.family] + font.fallbackFamilies).joined(separator: ", ") + " " + Self.points(points)
    }

    static func alignment(_ message: CardMessage) -> TextLayout.Alignment {
        switch message.align {
        case .left: .left
        case .centre: .centre
        case .right: .right
        }
    }
}
