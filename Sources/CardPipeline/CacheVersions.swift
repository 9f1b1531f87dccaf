import CardKit
import VipsKit

/// The versions that every cache key includes: bytes made by one cardrender or libvips
/// version are never served for another.
public enum CacheVersions {
    /// `cardrender <version> libvips <version>`.
    public static var current: String { "cardrender \(CardRenderVersion.string) libvips \(Vips.version)" }
}
