import Synchronization
import SystemPackage
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Frame art ready to lay over a card: colour and alpha, 8-bit, in memory.
public struct FrameOverlay: Sendable {
    /// The art's RGB.
    public let colour: VImage
    /// The art's alpha (0 transparent, 255 opaque).
    public let alpha: VImage
}
