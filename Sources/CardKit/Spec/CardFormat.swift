import Mail
import PressKit

/// The printed product: paper size, resolution and bleed.
public struct CardFormat: Sendable, Equatable, Hashable, Codable {
    /// The paper size (A6 by default).
    public var size: PaperSize
    /// Dots per inch of the print file (300 by default, what print shops expect).
    public var dpi: Int
    /// Extra margin on every side, in millimetres, cut off after printing (0 by default).
    public var bleed: Double

    public init(size: PaperSize = .a6, dpi: Int = 300, bleed: Double = 0) {
        self.size = size
        self.dpi = dpi
        self.bleed = bleed
    }

    /// Millimetres to print pixels at this format's dpi.
    public func pixels(_ millimetres: Double) -> Int {
        Int((millimetres / 25.4 * Double(dpi)).rounded())
    }

    /// The trimmed card (without bleed) in pixels: A6 at 300 dpi is 1748 x 1240 landscape.
    public func trimPixels(_ orientation: Orientation) -> (width: Int, height: Int) {
        let long = pixels(size.millimetres.long)
        let short = pixels(size.millimetres.short)
        return orientation == .landscape ? (long, short) : (short, long)
    }

    /// How the post carries a card of this size: a UPU postcard, or a letter abroad.
    public var mailClass: MailClass {
        MailClass(long: size.millimetres.long, short: size.millimetres.short)
    }

    /// Bleed on each side in pixels.
    public var bleedPixels: Int { pixels(bleed) }

    /// The whole print file in pixels: trim plus bleed on every side.
    public func printPixels(_ orientation: Orientation) -> (width: Int, height: Int) {
        let trim = trimPixels(orientation)
        return (trim.width + 2 * bleedPixels, trim.height + 2 * bleedPixels)
    }
}
