/// The back of a postcard as vector art, for a PDF: what `VersoRenderer` draws in pixels,
/// given instead as filled shapes (rules, stamp box, glyph outlines) and the few pictures
/// that have no outline (colour emoji). Coordinates are print pixels of the page (trim plus
/// bleed), y down, at the format's dpi; colours are sRGB, separated by the press document.
public struct VersoArtwork: Sendable {
    /// A shape filled with one colour.
    public struct Fill: Sendable {
        /// PDF path-construction operators (`m l c h re`) in pixels, y down, relative to `origin`.
        public var path: String
        /// Where the path's 0, 0 lies on the page.
        public var origin: (x: Double, y: Double)
        /// sRGB, 0-255 per channel.
        public var rgb: [Double]
        /// Horizontal scale about `origin` (below 1 for an address line condensed to fit).
        public var scaleX: Double = 1
    }

    /// A drawn picture (a run of colour glyphs).
    public struct Picture: Sendable {
        /// Top left on the page, in pixels.
        public var x: Double, y: Double
        public var width: Int, height: Int
        /// Straight RGBA, 4 bytes per pixel.
        public var rgba: [UInt8]
    }

    /// The page in print pixels (trim plus bleed on every side).
    public var width: Int, height: Int
    /// Print pixels per inch.
    public var dpi: Int
    /// The shapes, in painting order.
    public var fills: [Fill]
    /// The pictures, painted after the shapes.
    public var pictures: [Picture]
}
