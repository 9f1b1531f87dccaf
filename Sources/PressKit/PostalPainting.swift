import PressPDF

/// What one PDF page paints, as the postal check needs it: the box of every mark (a filled
/// or stroked path, a text run, an image) in the page's user space, with how dark its colour
/// is. Read from the content stream and the forms it draws, with the transformation in force.
///
/// A path's box is its points' (curves by their control points, which contain them); a text
/// run drawn with a font is a box one font size square at its start (its glyphs are not read);
/// an image is its unit square transformed, its darkness unknown.
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

    private(set) var marks: [Mark] = []
    /// What could not be read; the check fails a page with any.
    private(set) var problems: [String] = []
    private var scannedBytes = 0

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
        var fill: Double? = 1
        var stroke: Double? = 1
        var saved: [(Double?, Double?)] = []
        var path: (x0: Double, y0: Double, x1: Double, y1: Double)?
        var fontSize = 12.0
        var textMatrix = PDFContentScanner.Matrix.identity
        var lineMatrix = PDFContentScanner.Matrix.identity
        var leading = 0.0
        var forms: [(String, PDFContentScanner.Matrix)] = []
        PDFContentScanner(content).scan(from: start) { name, operands, matrix in
            let numbers = operands.compactMap { if case .number(let value) = $0 { value } else { nil } }
            func add(_ x: Double, _ y: Double) {
                let (px, py) = (matrix.a * x + matrix.c * y + matrix.e, matrix.b * x + matrix.d * y + matrix.f)
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
            func mark(_ box: (x0: Double, y0: Double, x1: Double, y1: Double), _ ink: Double?) {
                marks.append(Mark(x0: box.x0, y0: box.y0, x1: box.x1, y1: box.y1, darkness: ink))
            }
            func text() {
                let origin = textMatrix.then(matrix)
                let corners = [(0.0, 0.0), (fontSize, 0.0), (0.0, fontSize), (fontSize, fontSize)].map { x, y in
                    (origin.a * x + origin.c * y + origin.e, origin.b * x + origin.d * y + origin.f)
                }
                mark(
                    (
                        corners.map(\.0).min()!, corners.map(\.1).min()!, corners.map(\.0).max()!,
                        corners.map(\.1).max()!
                    ), fill)
            }
            switch name {
            case "q": saved.append((fill, stroke))
            case "Q": (fill, stroke) = saved.popLast() ?? (fill, stroke)
            case "g" where numbers.count == 1: fill = darkness(gray: numbers[0])
            case "G" where numbers.count == 1: stroke = darkness(gray: numbers[0])
            case "k" where numbers.count == 4: fill = darkness(cmyk: numbers)
            case "K" where numbers.count == 4: stroke = darkness(cmyk: numbers)
            case "rg" where numbers.count == 3: fill = darkness(rgb: numbers)
            case "RG" where numbers.count == 3: stroke = darkness(rgb: numbers)
            case "cs", "sc", "scn", "CS", "SC", "SCN":
                // A colour space or a colour in one: gray, RGB or CMYK by its number of
                // components, unknown (so ink) otherwise.
                let value: Double? =
                    switch numbers.count {
                    case 1: darkness(gray: numbers[0])
                    case 3: darkness(rgb: numbers)
                    case 4: darkness(cmyk: numbers)
                    default: nil
                    }
                if name == name.lowercased() { fill = value } else { stroke = value }
            case "m", "l":
                if numbers.count >= 2 { add(numbers[numbers.count - 2], numbers[numbers.count - 1]) }
            case "c", "v", "y":
                for pair in stride(from: 0, to: numbers.count - 1, by: 2) { add(numbers[pair], numbers[pair + 1]) }
            case "re" where numbers.count == 4:
                add(numbers[0], numbers[1])
                add(numbers[0] + numbers[2], numbers[1] + numbers[3])
            case "f", "F", "f*":
                if let box = path { mark(box, fill) }
                path = nil
            case "B", "B*", "b", "b*":
                if let box = path { mark(box, max(fill ?? 1, stroke ?? 1)) }
                path = nil
            case "S", "s":
                if let box = path { mark(box, stroke) }
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
            case "sh": mark((-1e6, -1e6, 1e6, 1e6), nil)  // a shading fills the clip: assume the whole page
            case "Do":
                if case .name(let key)? = operands.last { forms.append((key, matrix)) }
            default: break
            }
        }
        for (key, matrix) in forms {
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
            var formMatrix = PDFContentScanner.Matrix.identity
            if let numbers = document.value("/Matrix", in: object).flatMap(document.items)?.compactMap(document.number),
                numbers.count == 6
            {
                formMatrix = PDFContentScanner.Matrix(
                    a: numbers[0], b: numbers[1], c: numbers[2], d: numbers[3], e: numbers[4], f: numbers[5])
            }
            paint(
                content, resources: document.value("/Resources", in: object) ?? resources,
                matrix: formMatrix.then(matrix), depth: depth + 1, in: document)
        default: break
        }
    }
}
