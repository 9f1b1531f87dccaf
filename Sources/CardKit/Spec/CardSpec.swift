import Mail
import PressKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What one card should look like: the versioned JSON document (`"version": 1`), validated.
///
/// ```json
/// {"version": 1, "photo": "beach.jpg",
///  "transform": {"scale": 1.2, "rotation": -8, "offset": {"x": 0.05, "y": 0}},
///  "frame": "travel/airmail", "effect": {"name": "sepia", "strength": 0.6},
///  "card": {"size": "a6", "dpi": 300, "bleed": 3}, "background": "#ffffff"}
/// ```
/// `crop` `{x, y, width, height}` (pixels of the upright photo) replaces `transform`;
/// with neither the photo covers the window. `"transform": "auto"` asks the renderer to
/// choose (`FirstPlacement`: faces kept whole, else the most detail).
public struct CardSpec: Sendable, Equatable, Hashable, Encodable {
    /// The photo, relative to the spec file (nil in a sidecar: the photo beside it).
    public var photo: String?
    /// Where the photo sits in the window.
    public var placement: PhotoPlacement
    /// A catalogue frame id (`theme/name`), or none.
    public var frame: String?
    /// The effect; nil leaves the frame's (or none).
    public var effect: ColourEffect?
    /// Paper size, dpi and bleed.
    public var format: CardFormat
    /// The card background (RGB 0...255) where the photo leaves the window uncovered.
    public var background: [Double]
    /// The message on the back, if any.
    public var message: CardMessage?
    /// The addressees; one verso each. Empty: one verso with no address (when there is a
    /// message).
    public var recipients: [Recipient]
    /// Who sends the card, printed small on the message half (optional; an international card
    /// without one is a warning, since undeliverable mail abroad may otherwise be destroyed).
    public var sender: Recipient?
    /// The bytes of the card's code, a Data Matrix on its back (`VersoRenderer.code`), or none.
    /// Set by the postcard service (the card's id, signed); never read from a spec document.
    /// In the cache key as every field is: each card's back is its own.
    public var backCode: [UInt8]?

    public init(
        photo: String? = nil, placement: PhotoPlacement = .cover, frame: String? = nil, effect: ColourEffect? = nil,
        format: CardFormat = CardFormat(), background: [Double] = [255, 255, 255], message: CardMessage? = nil,
        recipients: [Recipient] = [], sender: Recipient? = nil
    ) {
        self.photo = photo
        self.placement = placement
        self.frame = frame
        self.effect = effect
        self.format = format
        self.background = background
        self.message = message
        self.recipients = recipients
        self.sender = sender
    }

    /// The spec format version this build reads.
    public static let version = 1

    /// Parses and validates a spec document.
    /// - Parameters:
    ///   - data: the JSON bytes.
    ///   - file: the spec's path, named in errors.
    /// - Throws: `CardSpecError` naming the field, what was expected and what was received.
    public static func parse(_ data: Data, file: String) throws(CardSpecError) -> CardSpec {
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw CardSpecError(file: file, field: "(document)", problem: "is not valid JSON.")
        }
        var reader = SpecReader(file: file)
        return try reader.card(root)
    }
}

/// Reads a `JSONValue` into a `CardSpec`, one field at a time, with precise errors.
private struct SpecReader {
    let file: String

    mutating func card(_ root: JSONValue) throws(CardSpecError) -> CardSpec {
        let fields = try object(
            root, at: "(document)",
            allowed: [
                "version", "photo", "crop", "transform", "frame", "effect", "card", "background", "message",
                "recipients", "sender",
            ])
        let version = try integer(fields["version"], at: "version", in: 1...Int.max)
        guard version == CardSpec.version else {
            throw .expected("version \(CardSpec.version)", at: "version", received: fields["version"], in: file)
        }
        var spec = CardSpec()
        if let photo = fields["photo"] {
            spec.photo = try string(photo, at: "photo", nonEmpty: true)
            try plainText(spec.photo ?? "", at: "photo", allowing: [])
        }
        switch (fields["crop"], fields["transform"]) {
        case (.some, .some):
            throw CardSpecError(file: file, field: "crop", problem: "and transform cannot both be given; use one.")
        case (.some(let crop), nil):
            let box = try object(crop, at: "crop", allowed: ["x", "y", "width", "height"])
            spec.placement = .crop(
                x: try integer(box["x"], at: "crop.x", in: 0...Int(Int32.max)),
                y: try integer(box["y"], at: "crop.y", in: 0...Int(Int32.max)),
                width: try integer(box["width"], at: "crop.width", in: 1...Int(Int32.max)),
                height: try integer(box["height"], at: "crop.height", in: 1...Int(Int32.max)))
        case (nil, .some(.string(let word))):
            guard word == "auto" else {
                throw .expected(
                    "\"auto\" or an object {scale, rotation, offset}", at: "transform", received: .string(word),
                    in: file)
            }
            spec.placement = .automatic
        case (nil, .some(let transform)):
            let values = try object(transform, at: "transform", allowed: ["scale", "rotation", "offset"])
            var offset: (Double, Double) = (0, 0)
            if let value = values["offset"] {
                let point = try object(value, at: "transform.offset", allowed: ["x", "y"])
                offset = (
                    try number(point["x"] ?? .number(0), at: "transform.offset.x", in: -10...10),
                    try number(point["y"] ?? .number(0), at: "transform.offset.y", in: -10...10)
                )
            }
            spec.placement = .transform(
                scale: try number(values["scale"] ?? .number(1), at: "transform.scale", in: 0.05...20),
                rotation: try number(values["rotation"] ?? .number(0), at: "transform.rotation", in: -3600...3600),
                offsetX: offset.0, offsetY: offset.1)
        case (nil, nil):
            break
        }
        if let frame = fields["frame"], frame != .null { spec.frame = try string(frame, at: "frame", nonEmpty: true) }
        if let effect = fields["effect"], effect != .null { spec.effect = try self.effect(effect) }
        if let card = fields["card"] { spec.format = try format(card) }
        if let background = fields["background"] { spec.background = try colour(background, at: "background") }
        if let message = fields["message"], message != .null { spec.message = try self.message(message) }
        if let recipients = fields["recipients"], recipients != .null {
            guard case .array(let list) = recipients else {
                throw .expected("an array of recipients", at: "recipients", received: recipients, in: file)
            }
            spec.recipients = try list.enumerated().map { index, value throws(CardSpecError) in
                try recipient(value, at: "recipients[\(index)]", owner: "recipient \(index + 1)")
            }
        }
        if let sender = fields["sender"], sender != .null {
            spec.sender = try recipient(sender, at: "sender", owner: "the sender")
        }
        return spec
    }

    func message(_ value: JSONValue) throws(CardSpecError) -> CardMessage {
        let fields = try object(value, at: "message", allowed: ["text", "font", "size", "colour", "align"])
        guard case .string(let text)? = fields["text"] else {
            throw .expected("the message as a string", at: "message.text", received: fields["text"], in: file)
        }
        try plainText(text, at: "message.text", allowing: ["\n", "\r", "\t"])
        var message = CardMessage(text: text)
        if let font = fields["font"] { message.font = try choice(font, at: "message.font") }
        if let size = fields["size"] {
            message.size = try integer(size, at: "message.size", in: CardMessage.sizes)
        }
        if let colour = fields["colour"] { message.colour = try choice(colour, at: "message.colour") }
        if let align = fields["align"] { message.align = try choice(align, at: "message.align") }
        let explicitLines = text.split(separator: "\n", omittingEmptySubsequences: false).count
        guard explicitLines <= CardMessage.maxLines else {
            throw CardSpecError(
                file: file, field: "message.text",
                problem: "has \(explicitLines) lines; a message may have \(CardMessage.maxLines) at most.")
        }
        return message
    }

    /// An address (a recipient or the sender): postal fields, the country read as an ISO code.
    /// `address1`...`address3` are the street lines; `city` (or `locality`, its name in the
    /// posts' data) the locality. Whether the destination needs a field, and its postcode's
    /// pattern, are checked when the back is laid out (`AddressBlock`).
    func recipient(_ value: JSONValue, at field: String, owner: String) throws(CardSpecError) -> Recipient {
        let fields = try object(
            value, at: field,
            allowed: [
                "name", "organisation", "address1", "address2", "address3", "dependentLocality", "city", "locality",
                "region", "postcode", "sortingCode", "country",
            ])
        func optional(_ key: String) throws(CardSpecError) -> String? {
            switch fields[key] {
            case nil, .null?: return nil
            case .string(let text)?:
                try plainText(text, at: field + "." + key, allowing: [])
                try noPictographs(text, at: field + "." + key, owner: owner, field: key)
                let trimmed = String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
                return trimmed.isEmpty ? nil : trimmed
            default: throw .expected("a string", at: field + "." + key, received: fields[key], in: file)
            }
        }
        guard case .string? = fields["name"], let name = try optional("name") else {
            throw .expected("a non-empty string", at: field + ".name", received: fields["name"], in: file)
        }
        let city = try optional("city")
        let locality = try optional("locality")
        if let city, let locality, city != locality {
            throw CardSpecError(
                file: file, field: field + ".locality",
                problem: "and city are two names for one field (the city); give one.")
        }
        var lines: [String] = []
        for key in ["address1", "address2", "address3"] {
            if let line = try optional(key) { lines.append(line) }
        }
        var recipient = Recipient(
            name: name, organisation: try optional("organisation"), addressLines: lines,
            dependentLocality: try optional("dependentLocality"), locality: city ?? locality,
            region: try optional("region"), postcode: try optional("postcode"),
            sortingCode: try optional("sortingCode"), country: "")
        let countryText = try string(fields["country"], at: field + ".country", nonEmpty: true)
        try plainText(countryText, at: field + ".country", allowing: [])
        do {
            recipient.country = try Country.resolve(countryText).code
        } catch {
            throw CardSpecError(file: file, field: field + ".country", problem: "\(owner), country: \(error)")
        }
        return recipient
    }

    /// Refuses emoji and other pictographs in an address: the post's machines read letters and
    /// digits, and a colour picture in the address block is neither.
    func noPictographs(_ text: String, at path: String, owner: String, field: String) throws(CardSpecError) {
        guard
            let scalar = text.unicodeScalars.first(where: {
                $0.properties.isEmojiPresentation || ($0.properties.isEmoji && $0.value >= 0x2100)
            })
        else { return }
        let code = String(scalar.value, radix: 16, uppercase: true)
        throw CardSpecError(
            file: file, field: path,
            problem: "\(owner), \(AddressProblem.label(field)): has the pictograph U+\(code) (\(String(scalar))); an "
                + "address holds letters, digits and punctuation only, as the post's machines read them.")
    }

    /// Refuses control characters but those `allowed`, and line or paragraph separators
    /// where no line break is: text reaches C (Pango, the file system) as a NUL-terminated
    /// string, where a NUL would silently cut it short ("null\u{0}byte" printed "null"), and
    /// other controls print as nothing or as a box.
    func plainText(_ text: String, at field: String, allowing allowed: Set<Unicode.Scalar>) throws(CardSpecError) {
        for (offset, scalar) in text.unicodeScalars.enumerated() where !allowed.contains(scalar) {
            let breaksLine = scalar == "\u{2028}" || scalar == "\u{2029}"
            guard scalar.value < 0x20 || scalar.value == 0x7F || (breaksLine && !allowed.contains("\n")) else {
                continue
            }
            let code = String(scalar.value, radix: 16, uppercase: true)
            throw CardSpecError(
                file: file, field: field,
                problem: "has the control character U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code) "
                    + "at character \(offset + 1); "
                    + (allowed.contains("\n")
                        ? "a message holds text, tabs and line breaks only."
                        : "this field is one line of text."))
        }
    }

    func choice<T: RawRepresentable & CaseIterable>(_ value: JSONValue, at field: String) throws(CardSpecError) -> T
    where T.RawValue == String {
        guard case .string(let text) = value, let choice = T(rawValue: text) else {
            let names = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw .expected("one of \(names)", at: field, received: value, in: file)
        }
        return choice
    }

    func effect(_ value: JSONValue) throws(CardSpecError) -> ColourEffect {
        let names = ColourEffect.Name.allCases.map(\.rawValue).joined(separator: ", ")
        if case .string(let text) = value {
            guard let name = ColourEffect.Name(rawValue: text) else {
                throw .expected("one of \(names)", at: "effect", received: value, in: file)
            }
            return ColourEffect(name)
        }
        let fields = try object(value, at: "effect", allowed: ["name", "strength"])
        let text = try string(fields["name"], at: "effect.name", nonEmpty: true)
        guard let name = ColourEffect.Name(rawValue: text) else {
            throw .expected("one of \(names)", at: "effect.name", received: fields["name"], in: file)
        }
        let strength = try number(fields["strength"] ?? .number(1), at: "effect.strength", in: 0...1)
        return ColourEffect(name, strength: strength)
    }

    func format(_ value: JSONValue) throws(CardSpecError) -> CardFormat {
        let fields = try object(value, at: "card", allowed: ["size", "dpi", "bleed"])
        var format = CardFormat()
        if let size = fields["size"] {
            let text = try string(size, at: "card.size", nonEmpty: true)
            guard let paper = PaperSize(rawValue: text.lowercased()) else {
                let sizes = PaperSize.allCases.map(\.rawValue).joined(separator: ", ")
                throw .expected("one of \(sizes)", at: "card.size", received: size, in: file)
            }
            format.size = paper
        }
        if let dpi = fields["dpi"] { format.dpi = try integer(dpi, at: "card.dpi", in: 72...1200) }
        if let bleed = fields["bleed"] { format.bleed = try number(bleed, at: "card.bleed", in: 0...10) }
        return format
    }

    func colour(_ value: JSONValue, at field: String) throws(CardSpecError) -> [Double] {
        guard case .string(let text) = value, text.count == 7, text.hasPrefix("#"),
            let rgb = Int(text.dropFirst(), radix: 16)
        else { throw .expected("a colour as \"#rrggbb\"", at: field, received: value, in: file) }
        return [Double((rgb >> 16) & 0xFF), Double((rgb >> 8) & 0xFF), Double(rgb & 0xFF)]
    }

    func object(_ value: JSONValue?, at field: String, allowed: Set<String>) throws(CardSpecError) -> [String:
        JSONValue]
    {
        guard case .object(let fields)? = value else {
            throw .expected("an object", at: field, received: value, in: file)
        }
        if let unknown = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            let prefix = field == "(document)" ? "" : field + "."
            throw CardSpecError(
                file: file, field: prefix + unknown,
                problem: "is not a known field; expected one of \(allowed.sorted().joined(separator: ", ")).")
        }
        return fields
    }

    func string(_ value: JSONValue?, at field: String, nonEmpty: Bool) throws(CardSpecError) -> String {
        guard case .string(let text)? = value, !(nonEmpty && text.isEmpty) else {
            throw .expected("a non-empty string", at: field, received: value, in: file)
        }
        return text
    }

    func number(_ value: JSONValue?, at field: String, in range: ClosedRange<Double>) throws(CardSpecError) -> Double {
        guard case .number(let number)? = value, number.isFinite, range.contains(number) else {
            throw .expected(
                "a number from \(format(range.lowerBound)) to \(format(range.upperBound))",
                at: field, received: value, in: file)
        }
        return number
    }

    func integer(_ value: JSONValue?, at field: String, in range: ClosedRange<Int>) throws(CardSpecError) -> Int {
        let description =
            range.upperBound >= Int(Int32.max)
            ? "a whole number of at least \(range.lowerBound)"
            : "a whole number from \(range.lowerBound) to \(range.upperBound)"
        guard case .number(let number)? = value, number == number.rounded(), abs(number) < 1e15,
            range.contains(Int(number))
        else { throw .expected(description, at: field, received: value, in: file) }
        return Int(number)
    }

    private func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
