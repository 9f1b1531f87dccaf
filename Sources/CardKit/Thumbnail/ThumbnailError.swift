import FileUtilities
import VipsKit

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

    public var description: String {
        switch self {
        case .widthOutOfRange(let received, let maximum):
            return "width must be a whole number from 1 to \(maximum); received \(received)."
        }
    }
}
