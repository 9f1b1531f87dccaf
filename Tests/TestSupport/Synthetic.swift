import Foundation

/// Small images made in the test, pixel by pixel, saved by the real `vips` CLI.
public enum Synthetic {
    /// Writes a `width` x `height` image with `bands` 8-bit bands to `path` (format from
    /// its extension; `.v` for a libvips file), colours given per pixel.
    public static func image(
        _ path: String, width: Int, height: Int, bands: Int, pixel: (Int, Int) -> [UInt8]
    ) throws {
        var raw = [UInt8]()
        raw.reserveCapacity(width * height * bands)
        for y in 0..<height {
            for x in 0..<width { raw.append(contentsOf: pixel(x, y).prefix(bands)) }
        }
        let rawPath = path + ".raw"
        try Data(raw).write(to: URL(fileURLWithPath: rawPath))
        defer { try? FileManager.default.removeItem(atPath: rawPath) }
        let interpretation = bands >= 3 ? "srgb" : "b-w"
        let staged = path + ".staged.v"
        defer { try? FileManager.default.removeItem(atPath: staged) }
        try Tools.vips("rawload", rawPath, staged + ".tmp.v", String(width), String(height), String(bands))
        try Tools.vips("copy", staged + ".tmp.v", staged, "--interpretation", interpretation)
        try? FileManager.default.removeItem(atPath: staged + ".tmp.v")
        try Tools.vips("copy", staged, path)
    }

    /// Four coloured quadrants (red, green / blue, yellow), opaque.
    public static func quadrants(_ path: String, width: Int = 64, height: Int = 48) throws {
        try image(path, width: width, height: height, bands: 3) { x, y in
            switch (x < width / 2, y < height / 2) {
            case (true, true): [220, 30, 30]
            case (false, true): [30, 200, 30]
            case (true, false): [30, 30, 220]
            case (false, false): [230, 220, 30]
            }
        }
    }
}
