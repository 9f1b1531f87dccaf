import ImageCore
import VipsKit

/// Where a new photo starts in its window, as a person would put it there: the faces whole
/// and inside the window's safe area, else centred on what libvips's attention measure finds
/// most interesting. Always a `transform` (scale 1, no turn: the photo covers the window,
/// so no print resolution is lost), with the reason it was chosen.
///
/// How: the upright photo is shrunk to at most 640 px on its long side and searched for
/// frontal faces by OpenCV's Haar cascade (`FaceDetector`, at least 20 px across there); each
/// is confirmed by the LBP cascade on its neighbourhood cut from a 1920 px copy and brought
/// to 200 px (the Haar cascade alone sees faces in a leaf's veins). Each face's box is widened to
/// the whole head (15 % each side, 30 % above for the forehead, 20 % below for the chin). The
/// largest face is kept, then each next largest while all kept heads fit the safe area (the
/// window less 5 % on each side) together; the window is centred on their box as far as the
/// photo, covering it, can move. With no face (or no OpenCV), the window is centred on the
/// attention measure's centre for a crop of the window's shape.
public struct FirstPlacement: Sendable, Hashable {
    /// The placement: `.transform(scale: 1, rotation: 0, offsetX:, offsetY:)`.
    public let placement: PhotoPlacement
    /// Why: "2 faces kept", "1 of 3 faces kept", "most detail (no face found)", ...
    public let reason: String
    /// The faces kept, in pixels of the upright photo.
    public let faces: [PixelRect]
    /// The card it was chosen for: its print file's size (bleed included).
    public let card: Size
    /// The photo window in that card, in print pixels.
    public let window: PixelRect

    /// The algorithm's version, part of the cache key of a card placed automatically: a
    /// change to how placements are chosen must not serve cards placed the old way.
    public static let version = "1 (haar frontalface_alt2, lbp frontalface_improved)"
    /// The part of the window a kept face must stay inside: 5 % in from each edge.
    public static let safeMargin = 0.05
    /// The long side of the image searched, in pixels.
    static let searchSide = 640
    /// The long side of the copy each face is confirmed on, in pixels.
    static let confirmSide = 1920

    /// Chooses where `photo` starts in `window` of a `card`.
    /// - Parameters:
    ///   - photo: the photo's bytes.
    ///   - upright: its upright size.
    ///   - card: the print file's size.
    ///   - window: the photo window, in print pixels of the card.
    ///   - policy: the decode policy (the header has been checked against it).
    /// - Throws: `ImageInputError` or `VipsError` when the photo does not decode.
    static func choose(
        photo: ImageData, upright: Size, card: Size, window windowBox: PixelRect, policy: DecodePolicy
    )
        throws -> FirstPlacement
    {
        let window = Size(width: windowBox.width, height: windowBox.height)
        let shrink = max(1, Double(max(upright.width, upright.height)) / Double(searchSide))
        let searched = Size(
            width: max(1, Int((Double(upright.width) / shrink).rounded())),
            height: max(1, Int((Double(upright.height) / shrink).rounded())))
        let small = try photo.thumbnail(policy: policy, width: searched.width, height: searched.height, strict: false)
            .opaqueSRGB().inMemory()
        let (fx, fy) = (
            Double(upright.width) / Double(searched.width), Double(upright.height) / Double(searched.height)
        )
        let geometry = Geometry(photo: upright, window: window)

        var found: [PixelRect] = []
        var unsearched: String?
        do {
            let grey = try small.recombined([[0.299, 0.587, 0.114]]).castToUChar().eightBitPixels()
            let candidates = try FaceDetector(cascade: FaceDetector.haarCascade).faces(
                in: grey, width: searched.width, height: searched.height, minimum: 20, neighbours: 4
            ).map {
                PixelRect(
                    x: Int(Double($0.x) * fx), y: Int(Double($0.y) * fy), width: Int(Double($0.width) * fx),
                    height: Int(Double($0.height) * fy))
            }
            if !candidates.isEmpty {
                found = try confirmed(candidates, photo: photo, upright: upright, policy: policy)
            }
        } catch is FaceDetector.Failure {
            // The reason reaches API clients: it names the cause, never the server's paths.
            unsearched = "OpenCV or its face cascades cannot be used here"
        }
        if !found.isEmpty {
            let kept = geometry.keptFaces(found)
            let box = kept.map(Geometry.head).reduce(Geometry.head(kept[0])) { $0.union($1) }
            let count = kept.count == found.count ? "\(kept.count)" : "\(kept.count) of \(found.count)"
            return FirstPlacement(
                placement: geometry.centred(on: (box.midX, box.midY)),
                reason: "\(count) \(found.count == 1 ? "face" : "faces") kept", faces: kept, card: card,
                window: windowBox)
        }
        let crop = (
            width: min(searched.width, max(1, Int((geometry.visible.width / fx).rounded()))),
            height: min(searched.height, max(1, Int((geometry.visible.height / fy).rounded())))
        )
        let centre = try small.attentionCentre(width: crop.width, height: crop.height)
        return FirstPlacement(
            placement: geometry.centred(on: ((Double(centre.x) + 0.5) * fx, (Double(centre.y) + 0.5) * fy)),
            reason: unsearched.map { "most detail (faces not searched: \($0))" } ?? "most detail (no face found)",
            faces: [], card: card, window: windowBox)
    }

    /// The candidates (upright photo pixels) the LBP cascade also finds a face in: each one's
    /// box widened by half its size on every side, cut from a copy at most `confirmSide` px
    /// long, brought to 200 px across.
    private static func confirmed(
        _ candidates: [PixelRect], photo: ImageData, upright: Size, policy: DecodePolicy
    ) throws -> [PixelRect] {
        let shrink = max(1, Double(max(upright.width, upright.height)) / Double(confirmSide))
        let size = Size(
            width: max(1, Int((Double(upright.width) / shrink).rounded())),
            height: max(1, Int((Double(upright.height) / shrink).rounded())))
        let copy = try photo.thumbnail(policy: policy, width: size.width, height: size.height, strict: false)
            .opaqueSRGB().recombined([[0.299, 0.587, 0.114]]).castToUChar().inMemory()
        let (fx, fy) = (Double(size.width) / Double(upright.width), Double(size.height) / Double(upright.height))
        let confirming = FaceDetector(cascade: FaceDetector.lbpCascade)
        return try candidates.filter { face in
            let left = max(0, Int((Double(face.x) - 0.5 * Double(face.width)) * fx))
            let top = max(0, Int((Double(face.y) - 0.5 * Double(face.height)) * fy))
            let right = min(size.width, Int((Double(face.x) + 1.5 * Double(face.width)) * fx))
            let bottom = min(size.height, Int((Double(face.y) + 1.5 * Double(face.height)) * fy))
            guard right - left >= 8, bottom - top >= 8 else { return false }
            let scale = 200 / Double(max(right - left, bottom - top))
            let region = try copy.extractArea(left: left, top: top, width: right - left, height: bottom - top)
                .resized(scale: scale).inMemory()
            let pixels = try region.eightBitPixels()
            return try !confirming.faces(
                in: pixels, width: region.width, height: region.height, minimum: 40, neighbours: 3
            ).isEmpty
        }
    }

    /// The photo covering the window, and what moving it does.
    struct Geometry {
        let photo: Size
        let window: Size
        /// Window units per photo pixel at scale 1 (cover).
        let cover: Double
        /// The part of the photo the window shows at scale 1, in photo pixels.
        let visible: (width: Double, height: Double)

        init(photo: Size, window: Size) {
            self.photo = photo
            self.window = window
            cover = max(Double(window.width) / Double(photo.width), Double(window.height) / Double(photo.height))
            visible = (Double(window.width) / cover, Double(window.height) / cover)
        }

        /// A box in photo pixels.
        struct Box {
            var left, top, right, bottom: Double
            var midX: Double { (left + right) / 2 }
            var midY: Double { (top + bottom) / 2 }
            var width: Double { right - left }
            var height: Double { bottom - top }
            func union(_ other: Box) -> Box {
                Box(
                    left: min(left, other.left), top: min(top, other.top), right: max(right, other.right),
                    bottom: max(bottom, other.bottom))
            }
        }

        /// A face's box widened to the head: forehead, chin, and a little either side.
        static func head(_ face: PixelRect) -> Box {
            let (x, y, width, height) = (Double(face.x), Double(face.y), Double(face.width), Double(face.height))
            return Box(
                left: x - 0.15 * width, top: y - 0.3 * height, right: x + 1.15 * width, bottom: y + 1.2 * height)
        }

        /// The largest face, then each next largest while every kept head fits the safe area.
        func keptFaces(_ faces: [PixelRect]) -> [PixelRect] {
            let ordered = faces.sorted { $0.width * $0.height > $1.width * $1.height }
            let safe = (width: visible.width * (1 - 2 * safeMargin), height: visible.height * (1 - 2 * safeMargin))
            var kept = [ordered[0]]
            var box = Self.head(ordered[0])
            for face in ordered.dropFirst() {
                let widened = box.union(Self.head(face))
                if widened.width <= safe.width && widened.height <= safe.height {
                    kept.append(face)
                    box = widened
                }
            }
            return kept
        }

        /// Scale 1, no turn, moved so that `point` (photo pixels) is as near the window's
        /// centre as the photo, still covering the window, allows. The offsets are rounded to
        /// 1/10,000 of the window, towards the centre (never uncovering an edge).
        func centred(on point: (Double, Double)) -> PhotoPlacement {
            func offset(_ position: Double, photoSide: Int, windowSide: Int) -> Double {
                let wanted = -(position - Double(photoSide) / 2) * cover / Double(windowSide)
                let reach = ((Double(photoSide) * cover / Double(windowSide) - 1) / 2 * 10_000).rounded(.down) / 10_000
                let rounded = (wanted * 10_000).rounded(.towardZero) / 10_000
                let clamped = min(max(rounded, -max(0, reach)), max(0, reach))
                return clamped == 0 ? 0 : clamped  // never -0
            }
            return .transform(
                scale: 1, rotation: 0, offsetX: offset(point.0, photoSide: photo.width, windowSide: window.width),
                offsetY: offset(point.1, photoSide: photo.height, windowSide: window.height))
        }
    }
}
