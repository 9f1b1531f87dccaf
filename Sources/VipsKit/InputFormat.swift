/// The raster formats accepted from untrusted input, identified by content (the libvips
/// loader that recognises the bytes), never by file name.
public enum InputFormat: String, CaseIterable, Sendable, Codable {
    case jpeg, png, webp, heif, tiff, gif

    /// The format whose libvips loader has this nickname (`jpegload_source`, ...), if accepted.
    init?(loader: String) {
        switch ImageFormatName.family(of: loader) {
        case "jpeg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "heif": self = .heif
        case "tiff": self = .tiff
        case "gif": self = .gif
        default: return nil
        }
    }
}
