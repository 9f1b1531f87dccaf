/// A rectangle of whole pixels, edges exclusive on the right and bottom: a frame's window on
/// the print, where a placed photo lands in its window, the part of a scaled photo a window
/// shows. Written and read as `{"x", "y", "width", "height"}` (the frame manifests' fields).
public struct PixelRect: Sendable, Hashable {
    public var left: Int
    public var top: Int
    public var right: Int
    public var bottom: Int

    /// The rectangle between these edges.
    public init(left: Int, top: Int, right: Int, bottom: Int) {
        self.left = left
        self.top = top
        self.right = right
        self.bottom = bottom
    }

    /// The rectangle of this size whose top left corner is at (`x`, `y`).
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.init(left: x, top: y, right: x + width, bottom: y + height)
    }

    /// The left edge.
    public var x: Int { left }
    /// The top edge.
    public var y: Int { top }
    public var width: Int { right - left }
    public var height: Int { bottom - top }
    /// No pixel inside.
    public var isEmpty: Bool { right <= left || bottom <= top }

    /// The pixels both rectangles hold (empty when they do not meet).
    public func intersection(_ other: PixelRect) -> PixelRect {
        PixelRect(
            left: max(left, other.left), top: max(top, other.top), right: min(right, other.right),
            bottom: min(bottom, other.bottom))
    }

    /// The rectangle moved by `x` across and `y` down.
    public func offset(x: Int, y: Int) -> PixelRect {
        PixelRect(left: left + x, top: top + y, right: right + x, bottom: bottom + y)
    }

    /// The smallest rectangle holding every point (fractions allowed), widened by `margin`.
    public static func enclosing(_ points: [(x: Double, y: Double)], margin: Double = 0) -> PixelRect {
        let xs = points.map(\.x)
        let ys = points.map(\.y)
        // Clamped well inside Int: a photo pushed ten windows out at scale 20 is still far
        // from it, but a rectangle is never allowed to overflow whatever the numbers.
        func whole(_ value: Double) -> Int { Int(max(-1e9, min(1e9, value))) }
        return PixelRect(
            left: whole((xs.min()! - margin).rounded(.down)), top: whole((ys.min()! - margin).rounded(.down)),
            right: whole((xs.max()! + margin).rounded(.up)), bottom: whole((ys.max()! + margin).rounded(.up)))
    }
}

extension PixelRect: CustomStringConvertible {
    /// As a manifest writes it: `(x: 10, y: 20, width: 300, height: 200)`.
    public var description: String { "(x: \(x), y: \(y), width: \(width), height: \(height))" }
}

extension PixelRect: Codable {
    private enum CodingKeys: String, CodingKey {
        case x, y, width, height
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let (x, y) = (try container.decode(Int.self, forKey: .x), try container.decode(Int.self, forKey: .y))
        let width = try container.decode(Int.self, forKey: .width)
        let height = try container.decode(Int.self, forKey: .height)
        // A manifest's numbers are read as written: edges that do not fit an Int are refused,
        // not wrapped or trapped on.
        let (right, overX) = x.addingReportingOverflow(width)
        let (bottom, overY) = y.addingReportingOverflow(height)
        guard !overX, !overY else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "the rectangle's edges are out of range"))
        }
        self.init(left: x, top: y, right: right, bottom: bottom)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(x, forKey: .x)
        try container.encode(y, forKey: .y)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
    }
}
