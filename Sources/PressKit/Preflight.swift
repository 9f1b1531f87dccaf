import FastPath
import PressPDF

/// Checks a PDF the way a print shop's preflight does, before it goes to press: structure,
/// PDF/X identification and output intent, page count and boxes, colour spaces (no RGB),
/// transparency (none in PDF/X-1a), fonts embedded or none, image resolution, total ink,
/// and black text in black ink alone. Against a press profile the boxes, condition, dpi and
/// ink limit are the profile's; without one, any PDF/X postcard is checked against the
/// common requirements (300 ppi, 300 % total ink).
///
/// Every PDF cardrender writes passes it before it is written (`CardRenderer`), and
/// `cardrender preflight` runs it on any file.
public struct Preflight: Sendable {
    /// One line of the checklist.
    public struct Check: Sendable, Equatable {
        public var name: String
        public var passed: Bool
        /// What was found (the numbers), or why it failed.
        public var detail: String
    }

    /// The checklist of one file.
    public struct Report: Sendable {
        public var checks: [Check]
        /// Whether every check passed.
        public var passed: Bool { checks.allSatisfy(\.passed) }
        /// The failed checks, as one sentence each.
        public var failures: [String] { checks.filter { !$0.passed }.map { "\($0.name): \($0.detail)" } }
    }

    /// The press the file is for (nil: the common requirements).
    public let press: PressProfile?
    /// Whether the address side (the last page) is checked against the posts' zones too
    /// (`PostalCheck`).
    public let postal: Bool
    /// Side of the squares over which total ink is averaged, in millimetres: what shops
    /// measure (a lone pixel of JPEG noise is no ink on paper). A JPEG image is measured on
    /// the largest whole number of its 8-pixel blocks that fits (never a larger square).
    public static let inkArea = 1.0
    /// Most pixels of one image preflight decodes.
    public static let maxImagePixels = 100_000_000

    public init(press: PressProfile?, postal: Bool = false) {
        self.press = press
        self.postal = postal
    }

    /// The checklist of the PDF in `bytes` (`name` used in messages).
    public func check(_ bytes: [UInt8], name: String) -> Report {
        let document: QPDFDocument
        do {
            document = try QPDFDocument(reading: bytes, name: name)
        } catch {
            return Report(checks: [Check(name: "structure", passed: false, detail: "not a readable PDF (\(error))")])
        }
        var checks: [Check] = []
        let painting = PreflightPainting(document: document)
        let problems = document.warnings.prefix(3).map { "qpdf repaired damage: \($0)" } + painting.problems.prefix(3)
        checks.append(
            problems.isEmpty
                ? Check(name: "structure", passed: true, detail: "qpdf reads it without errors or warnings")
                : Check(name: "structure", passed: false, detail: problems.joined(separator: "; ")))
        let version = identification(document, bytes: bytes)
        checks.append(version.check)
        checks.append(outputIntent(document))
        checks.append(pageCount(document))
        checks.append(boxes(document))
        checks.append(colourSpaces(painting))
        if version.isX1a { checks.append(transparency(document, painting: painting)) }
        checks.append(fonts(painting))
        checks.append(resolution(painting))
        checks.append(ink(painting))
        checks.append(blackText(painting))
        if postal {
            let violations = PostalCheck.violations(of: document, page: nil, hasAddress: true)
            checks.append(
                Check(
                    name: "postal", passed: violations.isEmpty,
                    detail: violations.isEmpty
                        ? "the address side keeps the coding strip blank, the franking zone to the stamp box and its "
                            + "ink to the address zone, dark on light"
                        : violations.map(\.description).joined(separator: "; ")))
        }
        return Report(checks: checks)
    }

    // MARK: the checks

    private func identification(_ document: QPDFDocument, bytes: [UInt8]) -> (check: Check, isX1a: Bool) {
        let header = String(decoding: bytes.prefix(8), as: UTF8.self)
        let fileVersion = header.hasPrefix("%PDF-") ? String(header.dropFirst(5)) : "?"
        let info = document.value("/Info", in: document.trailer)
        let claimed = info.flatMap { document.value("/GTS_PDFXVersion", in: $0) }.flatMap(document.string)
        guard let claimed else {
            return (
                Check(name: "PDF/X", passed: false, detail: "no GTS_PDFXVersion in the document information"), false
            )
        }
        let isX1a = claimed.hasPrefix("PDF/X-1")
        let maxVersion = isX1a ? 1.4 : 1.6
        var problems: [String] = []
        if let number = Double(fileVersion), number > maxVersion {
            problems.append("PDF \(fileVersion) is newer than \(claimed) allows (\(maxVersion))")
        }
        if claimed == "PDF/X-4", document.value("/Metadata", in: document.root) == nil {
            problems.append("PDF/X-4 needs XMP metadata")
        }
        if info.flatMap({ document.value("/Trapped", in: $0) }).flatMap(document.name) == nil {
            problems.append("no Trapped key (True or False)")
        }
        if let press {
            let wanted = press.format == .pdfX1a ? "PDF/X-1:2001" : "PDF/X-4"
            if claimed != wanted { problems.append("\(claimed), but \(press.name) takes \(wanted)") }
        }
        return (
            Check(
                name: "PDF/X", passed: problems.isEmpty,
                detail: problems.isEmpty ? "\(claimed), PDF \(fileVersion)" : problems.joined(separator: "; ")), isX1a
        )
    }

    private func outputIntent(_ document: QPDFDocument) -> Check {
        let intents = document.value("/OutputIntents", in: document.root).flatMap(document.items) ?? []
        guard
            let intent = intents.first(where: {
                document.value("/S", in: $0).flatMap(document.name) == "GTS_PDFX"
            })
        else {
            return Check(name: "output intent", passed: false, detail: "no GTS_PDFX output intent")
        }
        let identifier = document.value("/OutputConditionIdentifier", in: intent).flatMap(document.string) ?? "?"
        guard let profile = document.value("/DestOutputProfile", in: intent),
            document.value("/N", in: profile).flatMap(document.number) == 4
        else {
            return Check(
                name: "output intent", passed: false, detail: "\(identifier) without an embedded CMYK profile")
        }
        if let press, identifier != press.condition.identifier {
            return Check(
                name: "output intent", passed: false,
                detail: "\(identifier), but \(press.name) prints for \(press.condition.identifier)")
        }
        return Check(name: "output intent", passed: true, detail: "\(identifier), CMYK profile embedded")
    }

    private func pageCount(_ document: QPDFDocument) -> Check {
        let count = document.pageCount
        let passed = (1...2).contains(count)
        return Check(
            name: "pages", passed: passed,
            detail: passed ? "\(count) (photo side\(count == 2 ? ", back" : ""))" : "\(count): a postcard has 1 or 2")
    }

    private func boxes(_ document: QPDFDocument) -> Check {
        var problems: [String] = []
        var found: [String] = []
        for index in 0..<document.pageCount {
            let page = document.page(index)
            func box(_ key: String) -> [Double]? {
                guard let items = document.value(key, in: page).flatMap(document.items), items.count == 4 else {
                    return nil
                }
                let numbers = items.compactMap(document.number)
                return numbers.count == 4 ? numbers : nil
            }
            guard let media = box("/MediaBox"), let trim = box("/TrimBox") else {
                problems.append("page \(index + 1) has no TrimBox")
                continue
            }
            let bleedBox = box("/BleedBox") ?? media
            let bleeds = [trim[0] - bleedBox[0], trim[1] - bleedBox[1], bleedBox[2] - trim[2], bleedBox[3] - trim[3]]
            let size = (width: trim[2] - trim[0], height: trim[3] - trim[1])
            let millimetres = { (points: Double) in points / 72 * 25.4 }
            found.append(
                "page \(index + 1): trim \(Self.rounded(millimetres(size.width))) x \(Self.rounded(millimetres(size.height))) mm, "
                    + "bleed \(Self.rounded(millimetres(bleeds.min() ?? 0))) mm")
            if bleeds.contains(where: { $0 < -0.01 }) || media[0] > bleedBox[0] + 0.01 || media[2] < bleedBox[2] - 0.01
            {
                problems.append("page \(index + 1): the boxes do not nest (TrimBox inside BleedBox inside MediaBox)")
            }
            if let press {
                let tolerance = 0.5  // points
                let want = press.size.millimetres
                let (long, short) = (max(size.width, size.height), min(size.width, size.height))
                if abs(millimetres(long) - want.long) > millimetres(tolerance)
                    || abs(millimetres(short) - want.short) > millimetres(tolerance)
                {
                    problems.append(
                        "page \(index + 1): trim \(Self.rounded(millimetres(long))) x \(Self.rounded(millimetres(short))) mm, "
                            + "\(press.name) is \(Self.rounded(want.long)) x \(Self.rounded(want.short)) mm")
                }
                if bleeds.contains(where: { abs(millimetres($0) - press.bleed) > millimetres(tolerance) }) {
                    problems.append(
                        "page \(index + 1): bleed \(bleeds.map { Self.rounded(millimetres($0)) }.joined(separator: ", ")) "
                            + "mm, \(press.name) takes \(press.bleed) mm")
                }
            }
        }
        return Check(
            name: "boxes", passed: problems.isEmpty,
            detail: problems.isEmpty ? found.joined(separator: "; ") : problems.joined(separator: "; "))
    }

    private func colourSpaces(_ painting: PreflightPainting) -> Check {
        let rgb = painting.colourSpaces.filter { ["DeviceRGB", "CalRGB", "ICCBased RGB", "Lab"].contains($0) }
        let operators = painting.rgbOperators
        if rgb.isEmpty && operators == 0 {
            return Check(
                name: "colour", passed: true,
                detail: "no RGB (\(painting.colourSpaces.sorted().joined(separator: ", ")))")
        }
        var found: [String] = Array(Set(rgb)).sorted()
        if operators > 0 { found.append("\(operators) RGB colour operators") }
        return Check(name: "colour", passed: false, detail: "RGB found: \(found.joined(separator: ", "))")
    }

    private func transparency(_ document: QPDFDocument, painting: PreflightPainting) -> Check {
        let found = painting.transparency
        return Check(
            name: "transparency", passed: found.isEmpty,
            detail: found.isEmpty
                ? "none (PDF/X-1a allows none)" : "PDF/X-1a allows none: \(found.joined(separator: ", "))")
    }

    private func fonts(_ painting: PreflightPainting) -> Check {
        if painting.fonts.isEmpty { return Check(name: "fonts", passed: true, detail: "none (text as outlines)") }
        let missing = painting.fonts.filter { !$0.embedded }.map(\.name)
        return Check(
            name: "fonts", passed: missing.isEmpty,
            detail: missing.isEmpty
                ? "\(painting.fonts.count) embedded" : "not embedded: \(missing.sorted().joined(separator: ", "))")
    }

    private func resolution(_ painting: PreflightPainting) -> Check {
        let wanted = Double(press?.dpi ?? 300)
        let images = painting.images
        guard let lowest = images.min(by: { !($0.ppi >= $1.ppi) }) else {
            return Check(name: "resolution", passed: true, detail: "no images")
        }
        let passed = lowest.ppi >= wanted * 0.99
        return Check(
            name: "resolution", passed: passed,
            detail: passed
                ? "\(images.count) images, lowest \(Self.rounded(lowest.ppi)) ppi"
                : "\(lowest.name) is \(Self.rounded(lowest.ppi)) ppi, under \(Int(wanted))")
    }

    private func ink(_ painting: PreflightPainting) -> Check {
        let limit = press?.condition.inkLimit ?? 300
        var highest = 0.0
        var where_ = ""
        var problems: [String] = []
        for image in painting.images {
            switch image.maximumInk {
            case .success(let value):
                if value > highest { (highest, where_) = (value, image.name) }
            case .failure(let reason):
                problems.append("\(image.name): \(reason)")
            }
        }
        if painting.maximumFillInk > highest { (highest, where_) = (painting.maximumFillInk, "a vector fill") }
        if !problems.isEmpty {
            return Check(name: "ink", passed: false, detail: "cannot measure: \(problems.joined(separator: "; "))")
        }
        let passed = highest <= Double(limit) + 0.5
        return Check(
            name: "ink", passed: passed,
            detail: (passed ? "" : "over the limit: ")
                + "at most \(Self.rounded(highest)) % (\(where_.isEmpty ? "nothing inked" : where_), limit \(limit) %, "
                + "averaged over \(Int(Self.inkArea)) mm squares)")
    }

    private func blackText(_ painting: PreflightPainting) -> Check {
        let rich = painting.richBlackFills
        return Check(
            name: "black text", passed: rich == 0,
            detail: rich == 0
                ? "text and rules in black ink alone (no rich black)"
                : "\(rich) fills in rich black (C, M or Y under black): black text must be 0/0/0/100")
    }

    /// `value` to a tenth, without a trailing `.0` (any number a file holds, however large).
    static func rounded(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e12 else { return "\(value)" }
        let tenth = (value * 10).rounded() / 10
        return tenth == tenth.rounded() ? "\(Int(tenth))" : "\(tenth)"
    }
}
