/// Why an input was refused before or while decoding; every case names the file.
public enum ImageInputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be opened or read.
    case unreadable(file: String, reason: String)
    /// The path is a directory, device or other non-regular file.
    case notAFile(file: String)
    /// The file has no bytes.
    case empty(file: String)
    /// The file is bigger than the byte limit.
    case fileTooLarge(file: String, bytes: Int, limit: Int)
    /// The bytes are no image format libvips knows.
    case unrecognised(file: String)
    /// libvips knows the format but it is not one we open from untrusted input.
    case unsupportedFormat(file: String, loader: String)
    /// The header declares more pixels than the pixel limit.
    case tooManyPixels(file: String, width: Int, height: Int, limit: Int)
    /// The header was read but the pixel data is damaged (truncated or corrupt).
    case damaged(file: String, detail: String)

    /// The file or input name the error is about.
    public var file: String {
        switch self {
        case .unreadable(let file, _), .notAFile(let file), .empty(let file),
            .fileTooLarge(let file, _, _), .unrecognised(let file),
            .unsupportedFormat(let file, _), .tooManyPixels(let file, _, _, _), .damaged(let file, _):
            return file
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            return "\(file): cannot be read: \(reason)."
        case .notAFile(let file):
            return "\(file): is not a regular file."
        case .empty(let file):
            return "\(file): is empty (0 bytes), so it holds no image."
        case .fileTooLarge(let file, let bytes, let limit):
            return "\(file): is \(bytes) bytes, over the limit of \(limit) bytes."
        case .unrecognised(let file):
            return "\(file): is not an image in a known format (its content was checked, not its name)."
        case .unsupportedFormat(let file, let loader):
            return "\(file): is \(ImageFormatName.describe(loader: loader)), which is not accepted; "
                + "expected JPEG, PNG, WebP, HEIC/AVIF, TIFF or GIF."
        case .tooManyPixels(let file, let width, let height, let limit):
            return "\(file): declares \(width)x\(height) = \(width * height) pixels, "
                + "over the limit of \(limit) pixels; it was not decoded."
        case .damaged(let file, let detail):
            let reason = detail.isEmpty ? "libvips gave no detail" : detail
            return "\(file): the image data is damaged and could not be decoded (\(reason))."
        }
    }
}
