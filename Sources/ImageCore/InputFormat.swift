/// The raster formats accepted from untrusted input, identified by content (the libvips
/// loader that recognises the bytes), never by file name.
public enum InputFormat: String, CaseIterable, Sendable, Codable {
    case jpeg, png, webp, heif, tiff, gif

}
