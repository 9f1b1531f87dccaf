#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A thumbnail request that cannot be served as asked.
public enum ThumbnailError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `width` is below 1 or above the configured maximum.
    case widthOutOfRange(received: Int, maximum: Int)
    /// The box times its density is wider or taller than the maximum, or the image it needs
    /// (a padded canvas, an enlarged photo) has more pixels than the limit.
    case boxTooLarge(width: Int, height: Int, reason: String)

    public var description: String {
        switch self {
        case .widthOutOfRange(let received, let maximum):
            return "width must be a whole number from 1 to \(maximum); received \(received)."
        case .boxTooLarge(let width, let height, let reason):
            return "a \(width)x\(height) box is too large: \(reason)."
        }
    }
}
