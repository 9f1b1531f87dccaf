/// The formats cardrender writes.
public enum OutputFormat: String, CaseIterable, Sendable, Codable {
    case png, jpeg, webp, avif, tiff, gif

    /// The format called `name`: its own name or its file extension (`jpg`, `tif`), in any
    /// case. The command line and the server both read format names through this.
    public init?(name: String) {
        let lower = name.lowercased()
        guard let format = Self(rawValue: lower) ?? Self.allCases.first(where: { $0.fileExtension == lower }) else {
            return nil
        }
        self = format
    }

    /// The names `init(name:)` accepts, for messages: `png, jpeg (jpg), ...`.
    public static var names: String {
        allCases.map { $0.fileExtension == $0.rawValue ? $0.rawValue : "\($0.rawValue) (\($0.fileExtension))" }
            .joined(separator: ", ")
    }

    /// The usual file extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .png: "png"
        case .jpeg: "jpg"
        case .webp: "webp"
        case .avif: "avif"
        case .tiff: "tif"
        case .gif: "gif"
        }
    }

    /// The MIME type for HTTP responses.
    public var mimeType: String {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .tiff: "image/tiff"
        case .gif: "image/gif"
        }
    }

    /// Whether the format stores an alpha band (JPEG does not: alpha is flattened; GIF keeps
    /// one level of transparency).
    public var keepsAlpha: Bool { self != .jpeg }

    /// Whether the format holds an animation (WebP and GIF: every frame, its delay and the
    /// loop count).
    public var holdsAnimation: Bool { self == .webp || self == .gif }
}
