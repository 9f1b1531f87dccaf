import ImageCore
import VipsKit

/// The query of a `/thumb` request: `width=N[&format=png|jpeg|webp|avif|tiff|auto][&quality=Q]`.
///
/// Strict on purpose: a missing, repeated or unknown parameter is a 400 naming it, so a typo
/// such as `widht=200` is an error instead of an image nobody asked for.
public struct ThumbParameters: Sendable, Equatable {
    /// The output format asked for.
    public enum Format: Sendable, Equatable {
        /// This format whatever the client accepts.
        case fixed(OutputFormat)
        /// AVIF, WebP or JPEG by the `Accept` header (the response varies on it).
        case auto
    }

    /// Width in pixels; the height follows the aspect ratio.
    public var width: Int
    /// Output format (PNG by default, like the old service).
    public var format: Format
    /// Quality 1-100 for the lossy formats; nil for the format's default.
    public var quality: Int?

    /// The names a query may use (`sig` only reaches here when signing is off, and is refused).
    static let names = ["width", "format", "quality"]

    /// The formats `format=` takes.
    static let formatNames = OutputFormat.names + " or auto"

    public init(width: Int, format: Format = .fixed(.png), quality: Int? = nil) {
        self.width = width
        self.format = format
        self.quality = quality
    }

    /// Parses a raw query string (without the `?`).
    /// - Throws: `ThumbRequestError.badParameter` naming the parameter, what was expected
    ///   and what was received.
    public static func parse(query: Substring, maxWidth: Int) throws(ThumbRequestError) -> ThumbParameters {
        var values: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = PercentDecoding.decodeText(parts[0], plusIsSpace: true) else {
                throw .badParameter(name: "query", expected: "valid percent-encoding", received: String(pair))
            }
            guard names.contains(name) else {
                throw .badParameter(
                    name: name, expected: "only the parameters width, format and quality", received: String(pair))
            }
            let raw = parts.count > 1 ? parts[1] : ""
            guard let value = PercentDecoding.decodeText(raw, plusIsSpace: true) else {
                throw .badParameter(name: name, expected: "valid percent-encoding", received: String(raw))
            }
            guard values[name] == nil else {
                throw .badParameter(name: name, expected: "the parameter once", received: "it twice")
            }
            values[name] = value
        }
        let widthRange = "a whole number from 1 to \(maxWidth)"
        guard let widthText = values["width"] else {
            throw .badParameter(name: "width", expected: widthRange, received: nil)
        }
        guard let width = Int(widthText), (1...maxWidth).contains(width) else {
            throw .badParameter(name: "width", expected: widthRange, received: widthText)
        }
        var format = Format.fixed(.png)
        if let name = values["format"] {
            switch name {
            case "auto": format = .auto
            default:
                guard let fixed = OutputFormat(name: name) else {
                    throw .badParameter(name: "format", expected: formatNames, received: name)
                }
                format = .fixed(fixed)
            }
        }
        var quality: Int?
        if let text = values["quality"] {
            guard let value = Int(text), (1...100).contains(value) else {
                throw .badParameter(name: "quality", expected: "a whole number from 1 to 100", received: text)
            }
            guard format != .fixed(.png) else {
                throw .badParameter(
                    name: "quality", expected: "no quality with format png (it is lossless)", received: text)
            }
            quality = value
        }
        return ThumbParameters(width: width, format: format, quality: quality)
    }
}
