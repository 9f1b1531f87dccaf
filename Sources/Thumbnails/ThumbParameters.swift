import ImageCore
import PhotoSources

/// The query of a `/thumb` request, and the options of `cardrender thumb`: one parameter set.
///
/// `width=N` alone is the GD-style thumbnail. A box adds `height`, `fit`, `gravity` or
/// `focus`, `background` and `dpr`; `format`, `quality`, `placeholder`, `preset` and `exp`
/// complete it (docs/thumbnails.md). Strict on purpose: a repeated or unknown parameter, or
/// a value out of range, is a 400 naming it, so a typo such as `widht=200` is an error
/// instead of an image nobody asked for.
public struct ThumbParameters: Sendable, Equatable {
    /// The output format asked for.
    public enum Format: Sendable, Equatable {
        /// This format whatever the client accepts.
        case fixed(OutputFormat)
        /// AVIF, WebP or JPEG by the `Accept` header (the response varies on it).
        case auto
    }

    /// `quality=`: one number for whichever format is sent, or one per format.
    public enum Quality: Sendable, Equatable {
        /// `quality=80`: for the format sent, whichever it is.
        case all(Int)
        /// `quality=jpeg:80,webp:75,avif:50`: for a format named, only when it is sent.
        case perFormat([OutputFormat: Int])
    }

    /// The box (its `width` is nil when only a height was asked).
    public var box: ThumbnailBox
    /// Output format (PNG by default, like the old service).
    public var format: Format
    /// Quality asked; nil for the server's per-format defaults.
    public var quality: Quality?
    /// A placeholder instead of the thumbnail.
    public var placeholder: ThumbnailRequest.Placeholder?
    /// `exp=`: the second (since 1970) after which a signed URL is refused.
    public var expires: Int?
    /// Whether the query named `dpr` itself (Client Hints do not override it).
    public var namesDensity: Bool

    /// The names a query may use (`sig` only reaches here when signing is off, and is refused).
    package static let names = [
        "width", "height", "fit", "gravity", "focus", "background", "dpr", "format", "quality", "placeholder",
        "preset", "exp",
    ]

    /// The formats `format=` takes.
    package static let formatNames = OutputFormat.names + " or auto"

    public init(
        box: ThumbnailBox, format: Format = .fixed(.png), quality: Quality? = nil,
        placeholder: ThumbnailRequest.Placeholder? = nil, expires: Int? = nil, namesDensity: Bool = false
    ) {
        self.box = box
        self.format = format
        self.quality = quality
        self.placeholder = placeholder
        self.expires = expires
        self.namesDensity = namesDensity
    }

    /// The rules a query is read under.
    public struct Rules: Sendable {
        /// The largest `width` and `height`.
        public var maxWidth: Int
        /// `--preset NAME=...`: the parameters each name stands for.
        public var presets: [String: [(name: String, value: String)]]
        /// `--presets-only`: a query may name a preset (and `exp`), nothing else.
        public var presetsOnly: Bool
        /// A query may leave both width and height out (Client Hints supply the width).
        public var sizeOptional: Bool

        public init(
            maxWidth: Int, presets: [String: [(name: String, value: String)]] = [:], presetsOnly: Bool = false,
            sizeOptional: Bool = false
        ) {
            self.maxWidth = maxWidth
            self.presets = presets
            self.presetsOnly = presetsOnly
            self.sizeOptional = sizeOptional
        }
    }

    /// Parses a raw query string (without the `?`) under `rules`.
    /// - Throws: `ThumbParameterError` naming the parameter.
    public static func parse(query: Substring, rules: Rules) throws(ThumbParameterError) -> ThumbParameters {
        var pairs: [(name: String, value: String)] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentDecoding.decodeText(parts[0], plusIsSpace: true) else {
                throw ThumbParameterError(name: "query", expected: "valid percent-encoding", received: String(pair))
            }
            let raw = parts.count > 1 ? parts[1] : ""
            guard let value = PercentDecoding.decodeText(raw, plusIsSpace: true) else {
                throw ThumbParameterError(name: name, expected: "valid percent-encoding", received: String(raw))
            }
            pairs.append((name, value))
        }
        return try parse(pairs, rules: rules)
    }

    /// Parses decoded name-value pairs (a query's, or the command line's) under `rules`.
    /// - Throws: `ThumbParameterError` naming the parameter.
    public static func parse(_ pairs: [(name: String, value: String)], rules: Rules) throws(ThumbParameterError)
        -> ThumbParameters
    {
        var values: [String: String] = [:]
        for (name, value) in pairs {
            guard names.contains(name) else {
                throw ThumbParameterError(
                    name: name, expected: "only the parameters \(names.joined(separator: ", "))",
                    received: "\(name)=\(value)")
            }
            if rules.presetsOnly && name != "preset" && name != "exp" {
                throw ThumbParameterError(
                    name: name, expected: "only preset=NAME (the server takes presets only)",
                    received: "\(name)=\(value)")
            }
            guard values[name] == nil else {
                throw ThumbParameterError(name: name, expected: "the parameter once", received: "it twice")
            }
            values[name] = value
        }
        if let name = values["preset"] {
            guard let preset = rules.presets[name] else {
                let known = rules.presets.keys.sorted()
                throw ThumbParameterError(
                    name: "preset",
                    expected: known.isEmpty ? "no preset (the server defines none)" : known.joined(separator: ", "),
                    received: name)
            }
            // The query's own values win over the preset's.
            for (key, value) in preset where values[key] == nil { values[key] = value }
        } else if rules.presetsOnly {
            throw ThumbParameterError(
                name: "preset", expected: "preset=NAME (the server takes presets only)", received: nil)
        }
        return try build(values, rules: rules)
    }

    private static func build(_ values: [String: String], rules: Rules) throws(ThumbParameterError) -> ThumbParameters {
        let sideRange = "a whole number from 1 to \(rules.maxWidth)"
        func side(_ name: String) throws(ThumbParameterError) -> Int? {
            guard let text = values[name] else { return nil }
            guard let value = Int(text), (1...rules.maxWidth).contains(value) else {
                throw ThumbParameterError(name: name, expected: sideRange, received: text)
            }
            return value
        }
        var box = ThumbnailBox(width: try side("width"), height: try side("height"))
        if box.width == nil && box.height == nil && !rules.sizeOptional {
            throw ThumbParameterError(name: "width", expected: sideRange + " (or a height)", received: nil)
        }
        if let text = values["fit"] {
            guard let fit = ThumbnailBox.Fit(rawValue: text) else {
                throw ThumbParameterError(name: "fit", expected: "cover, contain, inside or fill", received: text)
            }
            box.fit = fit
        }
        if let text = values["gravity"] {
            guard let gravity = ThumbnailBox.Gravity.names[text.lowercased()] else {
                throw ThumbParameterError(
                    name: "gravity",
                    expected:
                        "centre, north, south, east, west, north-east, north-west, south-east, south-west or attention",
                    received: text)
            }
            box.gravity = gravity
        }
        if let text = values["focus"] {
            guard values["gravity"] == nil else {
                throw ThumbParameterError(name: "focus", expected: "focus or gravity, not both", received: text)
            }
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]), (0...1).contains(x),
                (0...1).contains(y)
            else {
                throw ThumbParameterError(
                    name: "focus", expected: "X,Y in fractions of the photo, each from 0 to 1", received: text)
            }
            box.gravity = .focus(x: x, y: y)
        }
        if let text = values["background"] {
            guard let colour = Self.colour(text) else {
                throw ThumbParameterError(
                    name: "background", expected: "a colour RRGGBB in hexadecimal", received: text)
            }
            box.background = colour
        }
        if let text = values["dpr"] {
            guard let dpr = Double(text), dpr.isFinite, (1...4).contains(dpr) else {
                throw ThumbParameterError(name: "dpr", expected: "a number from 1 to 4", received: text)
            }
            box.dpr = dpr
            let sides = box.canonical
            if (sides.width ?? 0) > rules.maxWidth || (sides.height ?? 0) > rules.maxWidth {
                throw ThumbParameterError(
                    name: "dpr", expected: "width and height times dpr at most \(rules.maxWidth)", received: text)
            }
        }
        var format = Format.fixed(.png)
        if let name = values["format"] {
            switch name {
            case "auto": format = .auto
            default:
                guard let fixed = OutputFormat(name: name) else {
                    throw ThumbParameterError(name: "format", expected: formatNames, received: name)
                }
                format = .fixed(fixed)
            }
        }
        var placeholder: ThumbnailRequest.Placeholder?
        if let text = values["placeholder"] {
            guard let kind = ThumbnailRequest.Placeholder(rawValue: text) else {
                throw ThumbParameterError(name: "placeholder", expected: "thumbhash or blur", received: text)
            }
            guard values["format"] == nil && values["quality"] == nil else {
                throw ThumbParameterError(
                    name: "placeholder", expected: "no format or quality with a placeholder (its format is fixed)",
                    received: text)
            }
            placeholder = kind
        }
        var quality: Quality?
        if let text = values["quality"] {
            quality = try Self.quality(text, format: format)
        }
        var expires: Int?
        if let text = values["exp"] {
            guard let seconds = Int(text), seconds >= 0 else {
                throw ThumbParameterError(name: "exp", expected: "a time in whole seconds since 1970", received: text)
            }
            expires = seconds
        }
        return ThumbParameters(
            box: box, format: format, quality: quality, placeholder: placeholder, expires: expires,
            namesDensity: values["dpr"] != nil)
    }

    /// `quality=80` or `quality=jpeg:80,webp:75,avif:50`.
    private static func quality(_ text: String, format: Format) throws(ThumbParameterError) -> Quality {
        let range = "a whole number from 1 to 100, or FORMAT:Q,... (jpeg, webp, avif)"
        if let value = Int(text) {
            guard (1...100).contains(value) else {
                throw ThumbParameterError(name: "quality", expected: range, received: text)
            }
            guard format != .fixed(.png) && format != .fixed(.gif) else {
                throw ThumbParameterError(
                    name: "quality", expected: "no quality with format png or gif (they are lossless)", received: text)
            }
            return .all(value)
        }
        var qualities: [OutputFormat: Int] = [:]
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = item.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let format = OutputFormat(name: String(parts[0])),
                [.jpeg, .webp, .avif].contains(format), let value = Int(parts[1]), (1...100).contains(value),
                qualities[format] == nil
            else { throw ThumbParameterError(name: "quality", expected: range, received: text) }
            qualities[format] = value
        }
        return .perFormat(qualities)
    }

    /// `RRGGBB` (an optional `#` before it) as three bytes.
    package static func colour(_ text: String) -> [UInt8]? {
        let hex = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
        guard hex.count == 6, hex.allSatisfy(\.isHexDigit), let value = UInt32(hex, radix: 16) else { return nil }
        return [UInt8(value >> 16), UInt8((value >> 8) & 255), UInt8(value & 255)]
    }

    /// The quality for `format` when it is the one sent: the query's when it names that
    /// format (or one number for all), else `defaults[format]`, else the format's own default.
    public func quality(for format: OutputFormat, defaults: [OutputFormat: Int]) -> Int {
        switch quality {
        case .all(let value)?: value
        case .perFormat(let values)?: values[format] ?? defaults[format] ?? EncodeOptions.defaultQuality(for: format)
        case nil: defaults[format] ?? EncodeOptions.defaultQuality(for: format)
        }
    }

    /// Reads `--preset NAME=width=400,height=300,fit=cover,...`: the name, and the
    /// parameters as `name=value` joined by commas (a comma before a piece without `=`
    /// belongs to the value before it, as in `focus=0.3,0.6`).
    /// - Throws: `ThumbParameterError` for a preset without a name or parameters,
    ///   or one whose parameters do not parse.
    public static func preset(_ text: String, maxWidth: Int) throws(ThumbParameterError) -> (
        name: String, parameters: [(name: String, value: String)]
    ) {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty,
            parts[0].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        else {
            throw ThumbParameterError(name: "preset", expected: "NAME=width=400,height=300,...", received: text)
        }
        var pieces: [String] = []
        for piece in parts[1].split(separator: ",", omittingEmptySubsequences: false) {
            if piece.contains("=") || pieces.isEmpty {
                pieces.append(String(piece))
            } else {
                pieces[pieces.count - 1] += "," + piece
            }
        }
        var pairs: [(name: String, value: String)] = []
        for piece in pieces {
            let pair = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, pair[0] != "preset", pair[0] != "exp" else {
                throw ThumbParameterError(name: "preset \(parts[0])", expected: "name=value pairs", received: piece)
            }
            pairs.append((String(pair[0]), String(pair[1])))
        }
        // Checked now, so that a bad preset stops the server at start, not a request later.
        _ = try parse(pairs, rules: Rules(maxWidth: maxWidth))
        return (String(parts[0]), pairs)
    }
}
