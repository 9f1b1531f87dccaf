import CardKit
import Mail
import PhotoSources
import VipsKit

/// The versions that every cache key includes: bytes made by one cardrender or libvips
/// version, or one executor revision, are never served for another.
public enum CacheVersions {
    /// `cardrender <version> libvips <version> executors fast <n> general <n> native ... postal ...`:
    /// the native libraries' versions too (`NativeLibraries`), and the postal tables' sources
    /// (the backs' addresses are written by them).
    ///
    /// The libvips version is the one cardrender was built against (`Vips.compiledVersion`):
    /// reading the loaded library's would open libvips in processes that never use it.
    public static var current: String {
        "cardrender \(CardRenderVersion.string) libvips \(Vips.compiledVersion) executors \(RenderPath.revisions) "
            + "native \(NativeLibraries.compiledVersions) postal \(AddressFormat.dataVersion)"
    }
}
