import ImageCore
import PressKit

/// One frame of the catalogue: its manifest (the old design records' fields).
public struct FrameDesign: Sendable, Equatable, Hashable, Codable {
    /// The preview thumbnail shown in the app's carousel, with its own window.
    public struct Preview: Sendable, Equatable, Hashable, Codable {
        public var width: Int
        public var height: Int
        public var window: PixelRect
    }

    /// `theme/name`, e.g. `travel/airmail`.
    public var id: String
    /// The theme (the old records' `style`).
    public var theme: String
    /// A title for people.
    public var title: String
    /// The paper size the art is drawn for (`a6`).
    public var size: PaperSize
    /// Landscape or portrait.
    public var orientation: Orientation
    /// The art file (SVG), relative to the manifest.
    public var art: String
    /// Where the photo shows, in print pixels at 300 dpi on the trimmed card
    /// (`collate_x`, `collate_y`, `photo_width`, `photo_height`).
    public var window: PixelRect
    /// An effect the design imposes on the photo, unless the spec names one.
    public var effect: ColourEffect.Name?
    /// The preview thumbnail's size and window (`thumbnail_width/height`, `thumbnail_x/y`).
    public var preview: Preview
}
