import ImageCore

extension InputFormat {
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
