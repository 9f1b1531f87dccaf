/// How the photo sits in the photo window, as the app's gestures or crop left it.
public enum PhotoPlacement: Sendable, Equatable, Hashable, Codable {
    /// Exactly this rectangle of the upright photo fills the window.
    case crop(x: Int, y: Int, width: Int, height: Int)
    /// Starting from the photo covering the window (centred, no gaps): `scale` multiplies
    /// (1 = cover), `rotation` turns it clockwise by degrees about the window centre, and
    /// `offsetX`/`offsetY` then move it by fractions of the window's width and height.
    case transform(scale: Double, rotation: Double, offsetX: Double, offsetY: Double)
    /// Chosen by the renderer from the photo (`FirstPlacement`), and resolved into a
    /// `transform` before anything is laid out.
    case automatic

    /// Cover the window, centred: the default.
    public static let cover = PhotoPlacement.transform(scale: 1, rotation: 0, offsetX: 0, offsetY: 0)
}
