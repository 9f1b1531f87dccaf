import ImageCore
import VipsKit

/// Where everything goes on one card, in print pixels.
struct CardLayout {
    /// Landscape or portrait.
    let orientation: Orientation
    /// The trimmed card.
    let trim: Size
    /// Bleed on each side.
    let bleed: Int
    /// The whole print file: trim plus bleed.
    let card: Size
    /// The photo window, in print-file coordinates.
    let window: (x: Int, y: Int, width: Int, height: Int)
    /// The upright photo's size.
    let photo: Size
    /// The placement, checked against the photo (never `.automatic`: laid out as `.cover`,
    /// for `CardRenderer.prepare`, which reads only the window before resolving it).
    let placement: PhotoPlacement
    /// Photo pixels to print pixels (> 1: the photo is enlarged).
    let photoScale: Double

    init(spec: CardSpec, frame: FrameDesign?, photo header: ImageHeader, specFile: String) throws(CardSpecError) {
        photo = Size(width: header.uprightWidth, height: header.uprightHeight)
        placement = spec.placement == .automatic ? .cover : spec.placement
        if let frame {
            orientation = frame.orientation
        } else if case .crop(_, _, let width, let height) = spec.placement {
            orientation = height > width ? .portrait : .landscape
        } else {
            orientation = photo.height > photo.width ? .portrait : .landscape
        }
        let trimPixels = spec.format.trimPixels(orientation)
        trim = Size(width: trimPixels.width, height: trimPixels.height)
        bleed = spec.format.bleedPixels
        card = Size(width: trim.width + 2 * bleed, height: trim.height + 2 * bleed)
        if let frame {
            // The manifest's window is in A6-at-300-dpi pixels of the frame's design size.
            let design = CardFormat(size: frame.size).trimPixels(frame.orientation)
            let sx = Double(trim.width) / Double(design.width)
            let sy = Double(trim.height) / Double(design.height)
            let x = Int((Double(frame.window.x) * sx).rounded())
            let y = Int((Double(frame.window.y) * sy).rounded())
            window = (
                x + bleed, y + bleed,
                Int((Double(frame.window.x + frame.window.width) * sx).rounded()) - x,
                Int((Double(frame.window.y + frame.window.height) * sy).rounded()) - y
            )
        } else {
            window = (0, 0, card.width, card.height)
        }
        switch placement {
        case .crop(let x, let y, let width, let height):
            guard x + width <= photo.width, y + height <= photo.height else {
                throw CardSpecError(
                    file: specFile, field: "crop",
                    problem: "expected a rectangle inside the \(photo.width)x\(photo.height) upright photo, "
                        + "received x \(x), y \(y), width \(width), height \(height).")
            }
            let cropAspect = Double(width) / Double(height)
            let windowAspect = Double(window.width) / Double(window.height)
            guard abs(cropAspect / windowAspect - 1) <= 0.02 else {
                throw CardSpecError(
                    file: specFile, field: "crop",
                    problem: "expected the photo window's shape (width/height \(Self.ratio(windowAspect))), "
                        + "received a \(width)x\(height) crop (\(Self.ratio(cropAspect))); they may differ by 2 % at most."
                )
            }
        case .transform, .automatic:
            break
        }
        photoScale = Self.photoScale(placement, window: (window.width, window.height), photo: photo)
    }

    private init(
        orientation: Orientation, trim: Size, bleed: Int, card: Size, window: (x: Int, y: Int, width: Int, height: Int),
        photo: Size, placement: PhotoPlacement
    ) {
        self.orientation = orientation
        self.trim = trim
        self.bleed = bleed
        self.card = card
        self.window = window
        self.photo = photo
        self.placement = placement
        photoScale = Self.photoScale(placement, window: (window.width, window.height), photo: photo)
    }

    /// This layout drawn at `size` (the sample's): the bleed, the window and the photo's
    /// scale in proportion, rounded to whole pixels (the window's edges as `init` rounds a
    /// frame's), the card exactly `size`.
    func scaled(to size: Size) -> CardLayout {
        let (sx, sy) = (Double(size.width) / Double(card.width), Double(size.height) / Double(card.height))
        let bleed = Int((Double(self.bleed) * (sx + sy) / 2).rounded())
        let x = Int((Double(window.x) * sx).rounded())
        let y = Int((Double(window.y) * sy).rounded())
        let right = min(size.width, max(x + 1, Int((Double(window.x + window.width) * sx).rounded())))
        let bottom = min(size.height, max(y + 1, Int((Double(window.y + window.height) * sy).rounded())))
        return CardLayout(
            orientation: orientation,
            trim: Size(width: size.width - 2 * bleed, height: size.height - 2 * bleed), bleed: bleed, card: size,
            window: (x, y, right - x, bottom - y), photo: photo, placement: placement)
    }

    /// Photo pixels to print pixels for `placement` in a window of `window`'s size: a crop
    /// fills it (the mean of its two scales), a transform scales the cover.
    private static func photoScale(_ placement: PhotoPlacement, window: (width: Int, height: Int), photo: Size)
        -> Double
    {
        switch placement {
        case .crop(_, _, let width, let height):
            return (Double(window.width) / Double(width) + Double(window.height) / Double(height)) / 2
        case .transform(let scale, _, _, _):
            let cover = max(Double(window.width) / Double(photo.width), Double(window.height) / Double(photo.height))
            return cover * scale
        case .automatic:
            preconditionFailure("CardLayout: placement is never .automatic (laid out as .cover)")
        }
    }

    private static func ratio(_ value: Double) -> String {
        String(Double(Int((value * 100).rounded())) / 100)
    }
}
