/// How to encode an image: the format and its settings.
public struct EncodeOptions: Sendable, Equatable, Hashable, Codable {
    /// Chroma subsampling for JPEG.
    public enum Chroma: String, Sendable, CaseIterable, Codable {
        /// libvips's choice: 4:2:0 below quality 90, 4:4:4 from 90 up.
        case auto
        /// 4:2:0, smaller files.
        case subsampled
        /// 4:4:4, sharper colour edges.
        case full
    }

    /// The output format.
    public var format: OutputFormat
    /// Quality 1...100 for JPEG, WebP and AVIF; for PNG only with `palette`.
    public var quality: Int
    /// Progressive (interlaced) JPEG.
    public var progressive: Bool
    /// JPEG chroma subsampling.
    public var chroma: Chroma
    /// PNG zlib compression level 0...9. The default, 1, with the Paeth row filter both
    /// encoders use, writes PNGs a fifth smaller than libvips's default (level 6, no filter)
    /// in half the time (benchmarks/RESULTS.md, "PNG without libvips").
    public var pngCompression: Int
    /// PNG as 8-bit palette (quantised): much smaller, lossy.
    public var palette: Bool
    /// Background that alpha is flattened onto when the format has no alpha (0...255 per band).
    public var background: [Double]
    /// Keep EXIF, XMP, IPTC and ICC metadata. Off by default: GPS must never leak, and
    /// the pixels are already sRGB, which is what a viewer assumes without a profile.
    public var keepMetadata: Bool
    /// Write the resolution (JPEG JFIF density, PNG pHYs, TIFF tags) even though the
    /// other metadata is removed: on for print files, whose dpi the print shop reads.
    /// (libvips 8.14's `strip` drops the JFIF header and its density with everything else,
    /// so this saves without `strip`, after removing the private fields itself.)
    public var keepResolution: Bool

    public init(
        format: OutputFormat = .png,
        quality: Int? = nil,
        progressive: Bool = false,
        chroma: Chroma = .auto,
        pngCompression: Int = 1,
        palette: Bool = false,
        background: [Double] = [255, 255, 255],
        keepMetadata: Bool = false,
        keepResolution: Bool = false
    ) {
        self.format = format
        self.quality = quality ?? EncodeOptions.defaultQuality(for: format)
        self.progressive = progressive
        self.chroma = chroma
        self.pngCompression = pngCompression
        self.palette = palette
        self.background = background
        self.keepMetadata = keepMetadata
        self.keepResolution = keepResolution
    }

    /// The default quality: 85 for JPEG, 80 for WebP, 60 for AVIF (similar visual quality),
    /// 100 for PNG (lossless; only used when `palette` is on), TIFF (deflate, lossless) and GIF
    /// (a palette per frame; quality unused).
    public static func defaultQuality(for format: OutputFormat) -> Int {
        switch format {
        case .jpeg: 85
        case .webp: 80
        case .avif: 60
        case .png, .tiff, .gif: 100
        }
    }
}
