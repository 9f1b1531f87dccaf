import PressPDF

/// What one PDF page paints, as the postal check needs it: the box of every mark (a filled
/// or stroked path, a text run, an image) in the page's user space, with how dark its colour
/// is. Read from the content stream and the forms it draws, with the transformation in force.
///
/// A path's box is its points' (curves by their control points, which contain them), grown by
/// half the line width when stroked; a text run drawn with a font is the square of one font
/// size at its start (its glyphs' widths are not read: a run that starts inside a zone and
/// runs out of it is not seen; cardrender's own PDFs draw text as outlines); an image, inline
/// or not, is its unit square transformed, its darkness unknown; a colour outside the device
/// spaces (a spot colour, Lab, indexed, a pattern) is unknown, so ink.
struct PostalPainting {
    /// One mark: its box in points (y up) and how dark it is, 0 (paper) to 1 (full black), nil
    /// when not known (an image).
    struct Mark: Equatable {
        var x0: Double, y0: Double, x1: Double, y1: Double
        var darkness: Double?
    }

    /// Forms nested deeper than this are not read.
    static let maxDepth = 8
    /// Most bytes of content read for one page, forms counted each time drawn.
    static let maxContentBytes = 64 << 20
    /// Most marks kept (a page of ours has a few dozen).
    static let maxMarks = 200_000
    /// Most images and forms drawn, nested draws included.
    static let maxDraws = 10_000

    private(set) var marks: [Mark] = []
    /// What could not be read; the check fails a page with any.
    private(set) var problems: [String] = []
    private var scannedBytes = 0
    private var draws = 0

    /// The marks of page `index` of `document`.
    init(document: QPDFDocument, page index: Int) {
        let page = document.page(index)
        do {
            let content = try document.contents(
                of: page, limit: min(QPDFDocument.maxDecodedStream, Self.maxContentBytes))
            paint(content, resources: document.value("/Resources", in: page), matrix: .identity, depth: 0, in: document)
        } catch {
            problems.append("page \(index + 1)'s content cannot be read (\(error))")
        }
    }

    private mutating func paint(
        _ content: [UInt8], resources: QPDFDocument.Object?, matrix start: PDFContentScanner.Matrix, depth: Int,
        in document: QPDFDocument
    ) {
        guard scannedBytes + content.count <= Self.maxContentBytes else {
            problems.append("more content than the postal check reads (\(Self.maxContentBytes >> 20) MiB)")
            return
        }
        scannedBytes += content.count
        /// The colour in force for filling and stroking, and the space it is in.
        struct Ink {
            var fill: Double? = 1, stroke: Double? = 1
            var fillSpace = "DeviceGray", strokeSpace = "DeviceGray"
            var lineWidth = 1.0
        }
        var ink = Ink()
        var saved: [Ink] = []
        var unsaved = 0
        var path: (x0: Double, y0: Double, x1: Double, y1: Double)?
        var fontSize = 12.0
        var textMatrix = PDFContentScanner.Matrix.identity
        var lineMatrix = PDFContentScanner.Matrix.identity
        var leading = 0.0
        var forms: [(String, PDFContentScanner.Matrix)] = []
        var problems: [String] = []
        var marks: [Mark] = []
        let room = Self.maxMarks - self.marks.count
        PDFContentScanner(content).scan(from: start) { name, operands, matrix in
            guard problems.isEmpty else { return }
            let numbers = operands.compactMap { if case .number(let value) = $0 { value } else { nil } }
            // A number PDF cannot write (NaN, infinity) would make every box compare false.
            guard numbers.allSatisfy(\.isFinite),
                [matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f].allSatisfy(\.isFinite)
            else {
                problems.append("a number that is not finite (\(name))")
                return
            }
            func point(_ x: Double, _ y: Double) -> (Double, Double) {
                (matrix.a * x + matrix.c * y + matrix.e, matrix.b * x + matrix.d * y + matrix.f)
            }
            func add(_ x: Double, _ y: Double) {
                let (px, py) = point(x, y)
                path =
                    path.map { (min($0.x0, px), min($0.y0, py), max($0.x1, px), max($0.y1, py)) } ?? (px, py, px, py)
            }
            func darkness(gray: Double) -> Double { max(0, min(1, 1 - gray)) }
            func darkness(cmyk: [Double]) -> Double {
                // The darker of the black ink and the colour inks taken together.
                max(cmyk[3], min(1, (cmyk[0] + cmyk[1] + cmyk[2]) / 3))
            }
            func darkness(rgb: [Double]) -> Double {
                max(0, min(1, 1 - (0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2])))
            }
            /// A colour in `space`: known for the device spaces, else unknown (so ink: a spot
            /// colour, Lab, an indexed or pattern colour may be anything).
            func colour(in space: String) -> Double? {
                switch (space, numbers.count) {
                case ("DeviceGray", 1), ("G", 1): darkness(gray: numbers[0])
                case ("DeviceRGB", 3), ("RGB", 3): darkness(rgb: numbers)
                case ("DeviceCMYK", 4), ("CMYK", 4): darkness(cmyk: numbers)
                default: nil
                }
            }
            func mark(_ box: (x0: Double, y0: Double, x1: Double, y1: Double), _ darkness: Double?, grow: Double = 0) {
                guard marks.count < room else {
                    problems.append("more than \(Self.maxMarks) marks")
                    return
                }
                marks.append(
                    Mark(x0: box.x0 - grow, y0: box.y0 - grow, x1: box.x1 + grow, y1: box.y1 + grow, darkness: darkness)
                )
            }
            /// The box of the unit square under `m`.
            func square(_ m: PDFContentScanner.Matrix) -> (Double, Double, Double, Double) {
                let xs = [m.e, m.a + m.e, m.c + m.e, m.a + m.c + m.e]
                let ys = [m.f, m.b + m.f, m.d + m.f, m.b + m.d + m.f]
                return (xs.min()!, ys.min()!, xs.max()!, ys.max()!)
            }
            func text() {
                let origin = PDFContentScanner.Matrix(a: fontSize, b: 0, c: 0, d: fontSize, e: 0, f: 0)
                    .then(textMatrix).then(matrix)
                mark(square(origin), ink.fill)
            }
            let strokeGrowth = ink.lineWidth / 2 * max(matrix.scales.x, matrix.scales.y)
            switch name {
            case "q" where saved.count >= PDFContentScanner.maxSavedStates: unsaved += 1
            case "q": saved.append(ink)
            case "Q" where unsaved > 0: unsaved -= 1
            case "Q": ink = saved.popLast() ?? ink
            case "w" where numbers.count == 1: ink.lineWidth = abs(numbers[0])
            case "g" where numbers.count == 1: (ink.fill, ink.fillSpace) = (darkness(gray: numbers[0]), "DeviceGray")
            case "G" where numbers.count == 1:
                (ink.stroke, ink.strokeSpace) = (darkness(gray: numbers[0]), "DeviceGray")
            case "k" where numbers.count == 4: (ink.fill, ink.fillSpace) = (darkness(cmyk: numbers), "DeviceCMYK")
            case "K" where numbers.count == 4:
                (ink.stroke, ink.strokeSpace) = (darkness(cmyk: numbers), "DeviceCMYK")
            case "rg" where numbers.count == 3: (ink.fill, ink.fillSpace) = (darkness(rgb: numbers), "DeviceRGB")
            case "RG" where numbers.count == 3:
                (ink.stroke, ink.strokeSpace) = (darkness(rgb: numbers), "DeviceRGB")
            case "cs", "CS":
                // A new colour space starts at its initial colour: black in the device spaces,
                // unknown in any other.
                let space: String = if case .name(let named)? = operands.last { named } else { "" }
                let initial: Double? = ["DeviceGray", "DeviceRGB", "DeviceCMYK"].contains(space) ? 1 : nil
                if name == "cs" {
                    (ink.fill, ink.fillSpace) = (initial, space)
                } else {
                    (ink.stroke, ink.strokeSpace) = (initial, space)
                }
            case "sc", "scn": ink.fill = colour(in: ink.fillSpace)
            case "SC", "SCN": ink.stroke = colour(in: ink.strokeSpace)
            case "m", "l":
                if numbers.count >= 2 { add(numbers[numbers.count - 2], numbers[numbers.count - 1]) }
            case "c", "v", "y":
                for pair in stride(from: 0, to: numbers.count - 1, by: 2) { add(numbers[pair], numbers[pair + 1]) }
            case "re" where numbers.count == 4:
                // All four corners: a turned or sheared rectangle's box is its corners'.
                add(numbers[0], numbers[1])
                add(numbers[0] + numbers[2], numbers[1])
                add(numbers[0], numbers[1] + numbers[3])
                add(numbers[0] + numbers[2], numbers[1] + numbers[3])
            case "f", "F", "f*":
                if let box = path { mark(box, ink.fill) }
                path = nil
            case "B", "B*", "b", "b*":
                if let box = path {
                    mark(box, ink.fill.flatMap { fill in ink.stroke.map { max(fill, $0) } }, grow: strokeGrowth)
                }
                path = nil
            case "S", "s":
                if let box = path { mark(box, ink.stroke, grow: strokeGrowth) }
                path = nil
            case "n": path = nil
            case "BT":
                textMatrix = .identity
                lineMatrix = .identity
            case "Tf" where numbers.count == 1: fontSize = abs(numbers[0])
            case "TL" where numbers.count == 1: leading = numbers[0]
            case "Td", "TD":
                guard numbers.count == 2 else { break }
                if name == "TD" { leading = -numbers[1] }
                lineMatrix = PDFContentScanner.Matrix(a: 1, b: 0, c: 0, d: 1, e: numbers[0], f: numbers[1])
                    .then(lineMatrix)
                textMatrix = lineMatrix
            case "Tm" where numbers.count == 6:
                lineMatrix = PDFContentScanner.Matrix(
                    a: numbers[0], b: numbers[1], c: numbers[2], d: numbers[3], e: numbers[4], f: numbers[5])
                textMatrix = lineMatrix
            case "T*", "'", "\"":
                lineMatrix = PDFContentScanner.Matrix(a: 1, b: 0, c: 0, d: 1, e: 0, f: -leading).then(lineMatrix)
                textMatrix = lineMatrix
                if name != "T*" { text() }
            case "Tj", "TJ": text()
            case "BI": mark(square(matrix), nil)  // an inline image: its unit square, colours unknown
            case "sh": mark((-1e6, -1e6, 1e6, 1e6), nil)  // a shading fills the clip: assume the whole page
            case "Do":
                guard forms.count < Self.maxDraws else {
                    problems.append("more than \(Self.maxDraws) images and forms drawn")
                    return
                }
                if case .name(let key)? = operands.last { forms.append((key, matrix)) }
            default: break
            }
        }
        self.problems += problems
        self.marks += marks
        guard problems.isEmpty else { return }
        for (key, matrix) in forms {
            guard self.problems.isEmpty, draws < Self.maxDraws else { break }
            draws += 1
            draw(key, resources: resources, matrix: matrix, depth: depth, in: document)
        }
    }

    /// An image's square, or a form's marks.
    private mutating func draw(
        _ key: String, resources: QPDFDocument.Object?, matrix: PDFContentScanner.Matrix, depth: Int,
        in document: QPDFDocument
    ) {
        guard let resources, let objects = document.value("/XObject", in: resources),
            let object = document.value("/" + key, in: objects)
        else { return }
        switch document.value("/Subtype", in: object).flatMap(document.name) {
        case "Image":
            let xs = [matrix.e, matrix.a + matrix.e, matrix.c + matrix.e, matrix.a + matrix.c + matrix.e]
            let ys = [matrix.f, matrix.b + matrix.f, matrix.d + matrix.f, matrix.b + matrix.d + matrix.f]
            guard marks.count < Self.maxMarks else { return }
            marks.append(Mark(x0: xs.min()!, y0: ys.min()!, x1: xs.max()!, y1: ys.max()!, darkness: nil))
        case "Form":
            guard depth < Self.maxDepth else {
                problems.append("form /\(key) is nested more than \(Self.maxDepth) deep")
                return
            }
            let content: [UInt8]
            do {
                content = try document.data(
                    of: object, limit: min(QPDFDocument.maxDecodedStream, Self.maxContentBytes - scannedBytes))
            } catch {
                problems.append("form /\(key)'s content cannot be read (\(error))")
                return
            }
            paint(
                content, resources: document.value("/Resources", in: object) ?? resources,
                matrix: document.formMatrix(object).then(matrix), depth: depth + 1, in: document)
        default: break
        }
    }
}
