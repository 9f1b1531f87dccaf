/// A rectangle of whole pixels, edges exclusive on the right and bottom: where a placed
/// photo lands in its window, or the part of the scaled photo that the window shows.
package struct PixelBox: Equatable {
    package var left: Int
    package var top: Int
    package var right: Int
    package var bottom: Int

    package init(left: Int, top: Int, right: Int, bottom: Int) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }

    package var width: Int { right - left }
    package var height: Int { bottom - top }
    /// No pixel inside.
    package var isEmpty: Bool { right <= left || bottom <= top }

    /// The pixels both boxes hold (empty when they do not meet).
    package func intersection(_ other: PixelBox) -> PixelBox {
        PixelBox(
            left: max(left, other.left), top: max(top, other.top), right: min(right, other.right),
            bottom: min(bottom, other.bottom))
    }

    /// The box moved by `x` across and `y` down.
    package func offset(x: Int, y: Int) -> PixelBox {
        PixelBox(left: left + x, top: top + y, right: right + x, bottom: bottom + y)
    }

    /// The smallest box holding every point (fractions allowed), widened by `margin`.
    package static func enclosing(_ points: [(x: Double, y: Double)], margin: Double = 0) -> PixelBox {
        let xs = points.map(\.x)
        let ys = points.map(\.y)
        // Clamped well inside Int: a photo pushed ten windows out at scale 20 is still far
        // from it, but a box is never allowed to overflow whatever the numbers.
        func whole(_ value: Double) -> Int { Int(max(-1e9, min(1e9, value))) }
        return PixelBox(
            left: whole((xs.min()! - margin).rounded(.down)), top: whole((ys.min()! - margin).rounded(.down)),
            right: whole((xs.max()! + margin).rounded(.up)), bottom: whole((ys.max()! + margin).rounded(.up)))
    }
}
