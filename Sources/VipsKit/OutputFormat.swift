/// The formats cardrender writes.
public enum OutputFormat: String, CaseIterable, Sendable, Codable {
    case png, jpeg, webp, avif, tiff

    /// The usual file extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .png: "png"
        case .jpeg: "jpg"
        case .webp: "webp"
        case .avif: "avif"
        case .tiff: "tif"
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
        }
    }

    /// Whether the format stores an alpha band (JPEG does not: alpha is flattened).
    public var keepsAlpha: Bool { self != .jpeg }
}
