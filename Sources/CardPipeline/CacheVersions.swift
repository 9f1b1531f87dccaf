import CardKit
import VipsKit

/// The versions that every cache key includes: bytes made by one cardrender or libvips
/// version, or one executor revision, are never served for another.
public enum CacheVersions {
    /// `cardrender <version> libvips <version> executors fast <n> general <n>`.
    public static var current: String {
        "cardrender \(CardRenderVersion.string) libvips \(Vips.version) executors \(ExecutorRevision.description)"
    }
}
