internal import CNativeVersions

/// The native libraries whose code makes cardrender's bytes, by the versions of the headers
/// cardrender was built against (`CNativeVersions`): libjpeg-turbo, libpng, zlib, lcms2,
/// libheif, Pango, cairo, HarfBuzz, fontconfig, librsvg and libqpdf. Every cache key names
/// them, so a file made by one version is never served for another. Read from headers, so
/// no library is opened to know them; libvips, opened on demand, is refused when it is not
/// the compiled version (`CLazyLibraries`).
public enum NativeLibraries {
    /// "libjpeg-turbo 2.1.5 libpng 1.6.39 zlib 1.2.13 lcms2 2140 ...".
    public static let compiledVersions = String(cString: CNativeVersions_string())
}
