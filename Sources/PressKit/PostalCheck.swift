import FastPath
import Mail
import PressPDF

/// Checks a postcard's address side on its pixels, as a sorting machine would meet it
/// (`PostalZones`): no ink in the coding strip, nothing but the stamp box in the franking
/// zone, nothing on the address side outside the address zone, and the address dark on a
/// light ground. Used on every back the renderer writes (its print file decoded) and by
/// `cardrender preflight --postal` (a PDF's last page drawn by `PostalRaster`).
public struct PostalCheck: Sendable {
    /// One rule a back breaks: the zone and what was found there.
    public struct Violation: Sendable, Equatable, CustomStringConvertible {
        /// `coding strip`, `franking zone`, `address zone` or `address contrast`.
        public let zone: String
        /// What was found, in words.
        public let detail: String
        public var description: String { "\(zone): \(detail)" }
    }

    /// A pixel is ink when its luminance is below this (paper is 255; the rules are 150).
    public static let inkLevel = 200
    /// The address must reach this dark (its darkest pixels)...
    public static let darkestText = 110
    /// ...on a ground at least this light (the zone's median).
    public static let lightGround = 200

    /// The card's zones.
    public let zones: PostalZones
    /// Bleed on each side, in millimetres.
    public let bleed: Double

    /// - Parameters:
    ///   - width, height: the trimmed card's long and short sides in millimetres.
    ///   - bleed: the bleed on each side in the image checked, in millimetres.
    public init(width: Double, height: Double, bleed: Double) {
        zones = PostalZones(width: width, height: height)
        self.bleed = bleed
    }

    /// The rules `back` (the whole page: trim and bleed, landscape, RGB) breaks; empty when
    /// it passes. `hasAddress`: whether an address should be there (a back without a
    /// recipient has none).
    public func violations(of back: MemoryImage, hasAddress: Bool) -> [Violation] {
        let scale = Double(back.width) / (zones.width + 2 * bleed)
        guard scale.isFinite, scale > 0, back.height > 0 else {
            return [Violation(zone: "structure", detail: "the back has no pixels to check")]
        }
        func box(_ rect: PostalZones.Rect, inset: Double = 0) -> (x0: Int, y0: Int, x1: Int, y1: Int) {
            let x0 = Int(((rect.x + bleed + inset) * scale).rounded(.down))
            let y0 = Int(((rect.y + bleed + inset) * scale).rounded(.down))
            let x1 = Int(((rect.maxX + bleed - inset) * scale).rounded(.up))
            let y1 = Int(((rect.maxY + bleed - inset) * scale).rounded(.up))
            // Inside the image, never reversed: a zone beyond it is an empty box.
            let (left, top) = (min(max(0, x0), back.width), min(max(0, y0), back.height))
            return (left, top, max(left, min(back.width, x1)), max(top, min(back.height, y1)))
        }
        func luminance(_ x: Int, _ y: Int) -> Int {
            let index = (y * back.width + x) * 3
            return
                (Int(back.pixels[index]) * 299 + Int(back.pixels[index + 1]) * 587
                + Int(back.pixels[index + 2]) * 114) / 1000
        }
        func contains(_ b: (x0: Int, y0: Int, x1: Int, y1: Int), _ x: Int, _ y: Int) -> Bool {
            x >= b.x0 && x < b.x1 && y >= b.y0 && y < b.y1
        }
        var violations: [Violation] = []
        // The coding strip, read on its trimmed area (the bleed beyond is cut off).
        let strip = box(zones.codingStrip)
        var stripInk = 0
        let trimBottom = box(.init(x: 0, y: 0, width: zones.width, height: zones.height)).y1
        for y in strip.y0..<max(strip.y0, min(strip.y1, trimBottom)) {
            for x in strip.x0..<strip.x1 where luminance(x, y) < Self.inkLevel { stripInk += 1 }
        }
        if stripInk > 0 {
            violations.append(
                Violation(
                    zone: "coding strip",
                    detail: "\(stripInk) pixels of ink in the \(Self.mm(zones.codingStrip.width)) x 15 mm strip along "
                        + "the bottom, where the post prints its barcode; it must stay blank"))
        }
        // The franking zone: the stamp box (with half a millimetre round its rules) and nothing else.
        let franking = box(zones.frankingZone)
        let stamp = box(zones.stampBox, inset: -0.5)
        var frankingInk = 0
        for y in franking.y0..<franking.y1 {
            for x in franking.x0..<franking.x1 where !contains(stamp, x, y) && luminance(x, y) < Self.inkLevel {
                frankingInk += 1
            }
        }
        if frankingInk > 0 {
            violations.append(
                Violation(
                    zone: "franking zone",
                    detail: "\(frankingInk) pixels of ink outside the stamp box in the 74 x 40 mm top right corner"))
        }
        // The address side beyond the divider: ink only in the address and franking zones.
        let side = box(
            .init(
                x: zones.dividerRule.maxX + 1, y: 0, width: zones.width - zones.dividerRule.maxX - 1,
                height: zones.height))
        // Half a millimetre round the zone: rules are measured to the millimetre, and a decoded
        // JPEG's or a glyph's edge pixel may fall just past it.
        let address = box(zones.addressZone, inset: -0.5)
        var stray = 0
        for y in side.y0..<side.y1 {
            for x in side.x0..<side.x1
            where !contains(address, x, y) && !contains(franking, x, y) && !contains(strip, x, y)
                && luminance(x, y) < Self.inkLevel
            {
                stray += 1
            }
        }
        if stray > 0 {
            violations.append(
                Violation(
                    zone: "address zone",
                    detail: "\(stray) pixels of ink on the address side outside the address zone (bottom right, "
                        + "15 mm from the right and bottom edges, below the franking zone)"))
        }
        if hasAddress {
            var histogram = [Int](repeating: 0, count: 256)
            var darkest = 255
            for y in address.y0..<address.y1 {
                for x in address.x0..<address.x1 {
                    let value = luminance(x, y)
                    histogram[value] += 1
                    darkest = min(darkest, value)
                }
            }
            let total = histogram.reduce(0, +)
            var seen = 0
            let median =
                histogram.firstIndex { count in
                    seen += count
                    return seen * 2 >= total
                } ?? 255
            if darkest >= Self.inkLevel {
                violations.append(Violation(zone: "address zone", detail: "no address is printed in it"))
            } else if darkest > Self.darkestText || median < Self.lightGround {
                violations.append(
                    Violation(
                        zone: "address contrast",
                        detail: "the address is not dark on a light ground (darkest \(darkest), ground \(median) "
                            + "of 255)"))
            }
        }
        return violations
    }

    /// The rules page `page` of the PDF `bytes` breaks, read from what it paints
    /// (`PostalPainting`): every mark's box against the zones, on the page's TrimBox (its
    /// MediaBox without one); the page must be landscape, as an address side is read.
    /// - Parameter hasAddress: whether an address should be there.
    public static func violations(ofPDF bytes: [UInt8], name: String, page: Int?, hasAddress: Bool) -> [Violation] {
        let document: QPDFDocument
        do {
            document = try QPDFDocument(reading: bytes, name: name)
        } catch {
            return [Violation(zone: "structure", detail: "not a readable PDF (\(error))")]
        }
        return violations(of: document, page: page, hasAddress: hasAddress)
    }

    /// As `violations(ofPDF:name:page:hasAddress:)` for an open document; `page` nil: its last.
    static func violations(of document: QPDFDocument, page: Int?, hasAddress: Bool) -> [Violation] {
        guard document.pageCount > 0 else { return [Violation(zone: "structure", detail: "the PDF has no page")] }
        let index = min(page ?? document.pageCount - 1, document.pageCount - 1)
        let object = document.page(index)
        /// A page attribute, inherited from the page tree when the page has none (MediaBox,
        /// Rotate), eight levels up at most.
        func attribute(_ key: String) -> QPDFDocument.Object? {
            var node: QPDFDocument.Object? = object
            for _ in 0..<8 {
                guard let current = node else { return nil }
                if let value = document.value(key, in: current) { return value }
                node = document.value("/Parent", in: current)
            }
            return nil
        }
        func box(_ key: String) -> [Double]? {
            guard let items = attribute(key).flatMap(document.items), items.count == 4 else {
                return nil
            }
            let numbers = items.compactMap(document.number)
            return numbers.count == 4
                ? [
                    min(numbers[0], numbers[2]), min(numbers[1], numbers[3]),
                    max(numbers[0], numbers[2]), max(numbers[1], numbers[3]),
                ] : nil
        }
        guard let trim = box("/TrimBox") ?? box("/MediaBox") else {
            return [Violation(zone: "structure", detail: "page \(index + 1) has no TrimBox or MediaBox")]
        }
        // A page shown turned is read as drawn: refused rather than checked on the wrong axes.
        let rotation = attribute("/Rotate").flatMap(document.number) ?? 0
        guard Int(rotation.rounded()) % 360 == 0 else {
            return [
                Violation(
                    zone: "orientation",
                    detail: "page \(index + 1) is shown turned (/Rotate \(Int(rotation.rounded()))); an address side "
                        + "is checked as drawn, landscape and upright")
            ]
        }
        let millimetres = { (points: Double) in points / 72 * 25.4 }
        let (width, height) = (millimetres(trim[2] - trim[0]), millimetres(trim[3] - trim[1]))
        guard width >= height else {
            return [
                Violation(
                    zone: "orientation",
                    detail:
                        "page \(index + 1) is portrait (\(Self.mm(width.rounded())) x \(Self.mm(height.rounded())) mm); "
                        + "an address side is read landscape")
            ]
        }
        let painting = PostalPainting(document: document, page: index)
        if !painting.problems.isEmpty {
            return [Violation(zone: "structure", detail: painting.problems.prefix(3).joined(separator: "; "))]
        }
        let marks = painting.marks.map { mark in
            (
                rect: PostalZones.Rect(
                    x: millimetres(mark.x0 - trim[0]), y: millimetres(trim[3] - mark.y1),
                    width: millimetres(mark.x1 - mark.x0), height: millimetres(mark.y1 - mark.y0)),
                darkness: mark.darkness
            )
        }
        return PostalCheck(width: width, height: height, bleed: 0).violations(of: marks, hasAddress: hasAddress)
    }

    /// The rules broken by `marks` (boxes in millimetres from the trimmed card's top left,
    /// darkness 0-1, nil unknown).
    func violations(of marks: [(rect: PostalZones.Rect, darkness: Double?)], hasAddress: Bool) -> [Violation] {
        let inkDarkness = 1 - Double(Self.inkLevel) / 255
        let ink = marks.filter { $0.darkness.map { $0 > inkDarkness } ?? true }
        let card = PostalZones.Rect(x: 0, y: 0, width: zones.width, height: zones.height)
        func intersects(_ a: PostalZones.Rect, _ b: PostalZones.Rect) -> Bool {
            let epsilon = 0.05
            return a.x < b.maxX - epsilon && b.x < a.maxX - epsilon && a.y < b.maxY - epsilon && b.y < a.maxY - epsilon
        }
        func inside(_ a: PostalZones.Rect, _ b: PostalZones.Rect, margin: Double = 0.05) -> Bool {
            a.x >= b.x - margin && a.y >= b.y - margin && a.maxX <= b.maxX + margin && a.maxY <= b.maxY + margin
        }
        var violations: [Violation] = []
        let inStrip = ink.filter { intersects($0.rect, zones.codingStrip) && intersects($0.rect, card) }
        if !inStrip.isEmpty {
            violations.append(
                Violation(
                    zone: "coding strip",
                    detail: "\(inStrip.count) marks of ink in the \(Self.mm(zones.codingStrip.width)) x 15 mm strip "
                        + "along the bottom, where the post prints its barcode; it must stay blank"))
        }
        let stamp = PostalZones.Rect(
            x: zones.stampBox.x - 0.5, y: zones.stampBox.y - 0.5, width: zones.stampBox.width + 1,
            height: zones.stampBox.height + 1)
        let franking = ink.filter { intersects($0.rect, zones.frankingZone) && !inside($0.rect, stamp) }
        if !franking.isEmpty {
            violations.append(
                Violation(
                    zone: "franking zone",
                    detail: "\(franking.count) marks of ink outside the stamp box in the 74 x 40 mm top right corner"))
        }
        let side = PostalZones.Rect(
            x: zones.dividerRule.maxX + 1, y: 0, width: zones.width - zones.dividerRule.maxX - 1, height: zones.height)
        let stray = ink.filter { mark in
            intersects(mark.rect, side) && intersects(mark.rect, card)
                && !inside(mark.rect, zones.addressZone, margin: 0.5)
                && !inside(mark.rect, zones.frankingZone) && !intersects(mark.rect, zones.codingStrip)
        }
        if !stray.isEmpty {
            violations.append(
                Violation(
                    zone: "address zone",
                    detail: "\(stray.count) marks of ink on the address side outside the address zone (bottom right, "
                        + "15 mm from the right and bottom edges, below the franking zone)"))
        }
        if hasAddress {
            let text = ink.filter { inside($0.rect, zones.addressZone, margin: 0.5) }
            let zoneArea = zones.addressZone.width * zones.addressZone.height
            let ground = text.filter { $0.rect.width * $0.rect.height >= zoneArea / 4 }
            if text.isEmpty {
                violations.append(Violation(zone: "address zone", detail: "no address is printed in it"))
            } else if !ground.isEmpty
                || text.contains(where: { ($0.darkness ?? 1) < 1 - Double(Self.darkestText) / 255 })
            {
                violations.append(
                    Violation(
                        zone: "address contrast",
                        detail: "the address is not dark text on a light ground (a light or dark fill under it, or "
                            + "text lighter than black)"))
            }
        }
        return violations
    }

    private static func mm(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
