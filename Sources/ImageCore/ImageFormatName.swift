/// Human names for libvips loaders, for error messages.
public enum ImageFormatName {
    /// The loader's format family, from its type name (`VipsForeignLoadJpegSource` ->
    /// `jpeg`, `VipsForeignLoadNsgifSource` -> `gif`) or nickname (`svgload_source` -> `svg`).
    public static func family(of loader: String) -> String {
        var name = loader
        if name.hasPrefix("VipsForeignLoad") {
            name.removeFirst("VipsForeignLoad".count)
            for suffix in ["Source", "Buffer", "File"] where name.hasSuffix(suffix) {
                name.removeLast(suffix.count)
            }
        } else {
            name = name.split(separator: "_").first.map(String.init) ?? name
            if name.hasSuffix("load") { name.removeLast(4) }
        }
        name = name.lowercased()
        return name == "nsgif" ? "gif" : name
    }

    /// A phrase such as "an SVG image" or "a PDF document".
    public static func describe(loader: String) -> String {
        let names = [
            "svg": "an SVG image", "pdf": "a PDF document", "magick": "an ImageMagick-only format",
            "fits": "a FITS image", "matrix": "a libvips matrix file", "csv": "a CSV file",
            "ppm": "a PPM/PNM image", "rad": "a Radiance HDR image", "vips": "a libvips .v image",
            "jp2k": "a JPEG 2000 image", "jxl": "a JPEG XL image", "openslide": "a slide image",
            "analyze": "an Analyze image", "mat": "a Matlab file", "raw": "raw pixel data",
        ]
        let family = family(of: loader)
        return names[family] ?? "a \(family) file"
    }
}
