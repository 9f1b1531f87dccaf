import FastPath
import PressPDF

/// What a PDF's pages paint, as preflight measures it: every page's content (and the forms
/// it draws) read once with the transformation and fill colour in force.
struct PreflightPainting {
    /// An image as drawn.
    struct Image {
        /// The resource name and object (`/Photo 8 0 R`).
        var name: String
        /// Pixels per inch as drawn (the lower of the two directions).
        var ppi: Double
        /// The highest total ink (percent) averaged over `Preflight.inkArea` squares, or why
        /// it cannot be measured.
        var maximumInk: Result<Double, InkProblem>
    }

    /// Why an image's ink could not be measured.
    struct InkProblem: Error, CustomStringConvertible {
        var description: String
    }

    /// Forms nested deeper than this are not read (a form may draw itself).
    static let maxDepth = 8
    /// Most image pixels one file's preflight decodes in all.
    static let maxTotalPixels = 400_000_000
    /// Most bytes of content one file's preflight reads in all, each form counted every time
    /// it is drawn: ours are under 1 MB, and a form drawn ten times by a form drawn ten
    /// times... (eight deep) must not read for hours.
    static let maxContentBytes = 256 << 20
    /// Most forms one file's preflight reads, each draw counted (an imposed sheet of ours
    /// draws one per card).
    static let maxFormDraws = 10_000
    private static let tooMuchContent = "more content to read than preflight reads"

    /// What could not be read: content that does not decode, forms nested too deep, too
    /// many image pixels. Preflight fails a file with any.
    private(set) var problems: [String] = []
    private(set) var colourSpaces: Set<String> = []
    private(set) var rgbOperators = 0
    private(set) var transparency: [String] = []
    private(set) var fonts: [(name: String, embedded: Bool)] = []
    private(set) var images: [Image] = []
    /// The highest total ink of a vector fill colour, percent.
    private(set) var maximumFillInk = 0.0
    /// Fills and text painted in rich black (black with C, M or Y under it).
    private(set) var richBlackFills = 0

    private var measuredInk: [String: Result<Double, InkProblem>] = [:]
    private var decodedPixels = 0
    private var scannedBytes = 0
    private var formDraws = 0
    private var seenFonts: Set<String> = []
    private var seenForms: Set<String> = []

    init(document: QPDFDocument) {
        for index in 0..<document.pageCount {
            let page = document.page(index)
            if let group = document.value("/Group", in: page),
                document.value("/S", in: group).flatMap(document.name) == "Transparency"
            {
                transparency.append("page \(index + 1) has a transparency group")
            }
            let resources = document.value("/Resources", in: page)
            do {
                let content = try document.contents(
                    of: page, limit: min(QPDFDocument.maxDecodedStream, Self.maxContentBytes - scannedBytes))
                paint(content, resources: resources, matrix: .identity, depth: 0, in: document)
            } catch {
                problems.append("page \(index + 1)'s content cannot be read (\(error))")
            }
        }
    }

    /// The fill colour in force, as CMYK fractions (nil: not CMYK or gray).
    private typealias Colour = [Double]?

    private mutating func paint(
        _ content: [UInt8], resources: QPDFDocument.Object?, matrix: PDFContentScanner.Matrix, depth: Int,
        in document: QPDFDocument
    ) {
        guard scannedBytes + content.count <= Self.maxContentBytes else {
            if !problems.contains(where: { $0.hasPrefix(Self.tooMuchContent) }) {
                problems.append("\(Self.tooMuchContent) (\(Self.maxContentBytes >> 20) MiB, forms included)")
            }
            return
        }
        scannedBytes += content.count
        if let resources { inspect(resources, in: document) }
        var fill: Colour = [0, 0, 0, 1]
        var saved: [Colour] = []
        var unsaved = 0
        PDFContentScanner(content).scan(from: matrix) { name, operands, current in
            let numbers = operands.compactMap { if case .number(let value) = $0 { value } else { nil } }
            switch name {
            case "q" where saved.count == PDFContentScanner.maxSavedStates: unsaved += 1
            case "q": saved.append(fill)
            case "Q" where unsaved > 0: unsaved -= 1
            case "Q": fill = saved.popLast() ?? fill
            case "k":
                colourSpaces.insert("DeviceCMYK")
                fill = numbers.count == 4 && numbers.allSatisfy({ (0...1).contains($0) }) ? numbers : nil
                if let fill { maximumFillInk = max(maximumFillInk, fill.reduce(0, +) * 100) }
            case "K": colourSpaces.insert("DeviceCMYK")
            case "g":
                colourSpaces.insert("DeviceGray")
                fill = numbers.count == 1 && (0...1).contains(numbers[0]) ? [0, 0, 0, 1 - numbers[0]] : nil
            case "G": colourSpaces.insert("DeviceGray")
            case "rg", "RG":
                colourSpaces.insert("DeviceRGB")
                rgbOperators += 1
                if name == "rg" { fill = nil }
            case "cs", "CS":
                if case .name(let space)? = operands.last {
                    colourSpaces.insert(space == "Pattern" ? "Pattern" : space)
                }
                if name == "cs" { fill = nil }
            case "f", "F", "f*", "B", "B*", "b", "b*", "Tj", "TJ", "'", "\"":
                if let fill, fill.count == 4, fill[3] >= 0.9, fill[0] + fill[1] + fill[2] > 0.001 {
                    richBlackFills += 1
                }
            case "Do":
                if case .name(let key)? = operands.last {
                    draw(key, resources: resources, matrix: current, depth: depth, in: document)
                }
            default: break
            }
        }
    }

    /// The colour spaces, fonts and graphics states a resource dictionary offers.
    private mutating func inspect(_ resources: QPDFDocument.Object, in document: QPDFDocument) {
        if let spaces = document.value("/ColorSpace", in: resources) {
            for key in document.keys(spaces) {
                if let space = document.value(key, in: spaces) {
                    colourSpaces.insert(Self.describe(space, in: document))
                }
            }
        }
        if let states = document.value("/ExtGState", in: resources) {
            for key in document.keys(states) {
                guard let state = document.value(key, in: states) else { continue }
                for alpha in ["/CA", "/ca"] {
                    if let value = document.value(alpha, in: state).flatMap(document.number), value < 1 {
                        transparency.append("graphics state \(key) sets \(alpha) \(value)")
                    }
                }
                if let mask = document.value("/SMask", in: state), document.name(mask) != "None" {
                    transparency.append("graphics state \(key) has a soft mask")
                }
                if let blend = document.value("/BM", in: state).flatMap(document.name),
                    !["Normal", "Compatible"].contains(blend)
                {
                    transparency.append("graphics state \(key) blends \(blend)")
                }
            }
        }
        if let fontDictionary = document.value("/Font", in: resources) {
            for key in document.keys(fontDictionary) {
                guard let font = document.value(key, in: fontDictionary) else { continue }
                let identity = document.unparse(font)
                guard seenFonts.insert(identity).inserted else { continue }
                let name = document.value("/BaseFont", in: font).flatMap(document.name) ?? key
                fonts.append((name, Self.isEmbedded(font, in: document)))
            }
        }
    }

    private static func isEmbedded(_ font: QPDFDocument.Object, in document: QPDFDocument) -> Bool {
        if document.value("/Subtype", in: font).flatMap(document.name) == "Type3" { return true }
        var described = font
        if let descendant = document.value("/DescendantFonts", in: font).flatMap(document.items)?.first {
            described = descendant
        }
        guard let descriptor = document.value("/FontDescriptor", in: described) else { return false }
        return ["/FontFile", "/FontFile2", "/FontFile3"].contains { document.value($0, in: descriptor) != nil }
    }

    /// A colour space's family: `DeviceCMYK`, `ICCBased CMYK`, `ICCBased RGB`, `Separation`...
    static func describe(_ space: QPDFDocument.Object, in document: QPDFDocument) -> String {
        if let name = document.name(space) { return name }
        guard let items = document.items(space), let family = items.first.flatMap(document.name) else { return "?" }
        if family == "ICCBased", items.count > 1 {
            switch document.value("/N", in: items[1]).flatMap(document.number) {
            case 1: return "ICCBased Gray"
            case 3: return "ICCBased RGB"
            case 4: return "ICCBased CMYK"
            default: return "ICCBased"
            }
        }
        if family == "Indexed", items.count > 1 { return describe(items[1], in: document) }
        return family
    }

    private mutating func draw(
        _ key: String, resources: QPDFDocument.Object?, matrix: PDFContentScanner.Matrix, depth: Int,
        in document: QPDFDocument
    ) {
        guard let resources, let objects = document.value("/XObject", in: resources),
            let object = document.value("/" + key, in: objects)
        else { return }
        let identity = document.unparse(object)
        switch document.value("/Subtype", in: object).flatMap(document.name) {
        case "Image":
            let width = document.value("/Width", in: object).flatMap(document.number) ?? 0
            let height = document.value("/Height", in: object).flatMap(document.number) ?? 0
            let scales = matrix.scales
            let ppi = min(
                scales.x > 0 ? width / (scales.x / 72) : .infinity, scales.y > 0 ? height / (scales.y / 72) : .infinity)
            if let space = document.value("/ColorSpace", in: object) {
                colourSpaces.insert(Self.describe(space, in: document))
            }
            if document.value("/SMask", in: object) != nil { transparency.append("image /\(key) has a soft mask") }
            var ink: Result<Double, InkProblem>
            if let known = measuredInk[identity] {
                ink = known
            } else if decodedPixels + count(width) * count(height) > Self.maxTotalPixels {
                ink = .failure(InkProblem(description: "over \(Self.maxTotalPixels) image pixels in the file"))
            } else {
                decodedPixels += count(width) * count(height)
                ink = Self.maximumInk(of: object, ppi: ppi, in: document)
            }
            measuredInk[identity] = ink
            images.append(Image(name: "/\(key) (\(identity))", ppi: ppi, maximumInk: ink))
        case "Form":
            guard depth < Self.maxDepth else {
                problems.append("form /\(key) is nested more than \(Self.maxDepth) deep")
                return
            }
            guard seenForms.insert(identity + "@\(matrix)").inserted else { return }
            formDraws += 1
            guard formDraws <= Self.maxFormDraws else {
                if formDraws == Self.maxFormDraws + 1 { problems.append("more than \(Self.maxFormDraws) forms drawn") }
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
            if let group = document.value("/Group", in: object),
                document.value("/S", in: group).flatMap(document.name) == "Transparency"
            {
                transparency.append("form /\(key) has a transparency group")
            }
            paint(
                content, resources: document.value("/Resources", in: object) ?? resources,
                matrix: document.formMatrix(object).then(matrix), depth: depth + 1, in: document)
        default: break
        }
    }

    /// The highest total ink of an image, averaged over `Preflight.inkArea` squares at `ppi`.
    private static func maximumInk(of image: QPDFDocument.Object, ppi: Double, in document: QPDFDocument) -> Result<
        Double, InkProblem
    > {
        var width = count(document.value("/Width", in: image).flatMap(document.number))
        var height = count(document.value("/Height", in: image).flatMap(document.number))
        let bits = count(document.value("/BitsPerComponent", in: image).flatMap(document.number))
        let space = document.value("/ColorSpace", in: image).map { describe($0, in: document) } ?? "?"
        let components: Int
        switch space {
        case "DeviceCMYK", "ICCBased CMYK": components = 4
        case "DeviceGray", "ICCBased Gray": components = 1
        default: return .failure(InkProblem(description: "a \(space) image (only CMYK and gray are measured)"))
        }
        guard width > 0, height > 0, bits == 8, width * height <= Preflight.maxImagePixels else {
            return .failure(InkProblem(description: "\(width) x \(height) at \(bits) bits is not measured"))
        }
        let filters = document.filters(of: image)
        // The ink is averaged over squares of `box` pixels. A JPEG is decoded at the DCT scale
        // that fits in a square (each pixel then the mean of its block): the same averages
        // for a fraction of the decode.
        let perSquare = ppi.isFinite ? min(max(ppi, 0) / 25.4 * Preflight.inkArea, 4096) : 1
        var box = max(1, Int(perSquare.rounded()))
        var samples: [UInt8]
        do {
            // A Flate image holds its samples and little more (a stray end of line).
            let data = try document.data(
                of: image,
                limit: filters.last == "DCTDecode" ? QPDFDocument.maxDecodedStream : width * height * components + 4096,
                keeping: ["DCTDecode"])
            if filters.last == "DCTDecode" {
                guard components == 4 else {
                    return .failure(InkProblem(description: "a gray JPEG image is not measured"))
                }
                let scale = [8, 4, 2, 1].first { $0 <= box } ?? 1
                let decoded = try JPEGCodec.decodeCMYK(data, scale: scale, maxPixels: Preflight.maxImagePixels)
                guard decoded.width == (width + scale - 1) / scale, decoded.height == (height + scale - 1) / scale
                else {
                    return .failure(
                        InkProblem(description: "its JPEG is not \(width) x \(height) pixels as the image says"))
                }
                (samples, width, height, box) = (decoded.pixels, decoded.width, decoded.height, max(1, box / scale))
            } else if filters.allSatisfy({ $0 == "FlateDecode" }) {
                samples = data
            } else {
                return .failure(InkProblem(description: "filters \(filters) are not measured"))
            }
        } catch {
            return .failure(InkProblem(description: "cannot be decoded (\(error))"))
        }
        guard samples.count >= width * height * components else {
            return .failure(InkProblem(description: "its data is shorter than \(width) x \(height) pixels"))
        }
        // `/Decode` maps each sample to its ink (`[1 0]` for Adobe's inverted CMYK JPEGs).
        let decode = document.value("/Decode", in: image).flatMap(document.items)?.compactMap(document.number) ?? []
        var lookup: [[Double]] = []
        for component in 0..<components {
            let (low, high) =
                decode.count == 2 * components ? (decode[2 * component], decode[2 * component + 1]) : (0.0, 1.0)
            // Gray is lightness: its ink is 1 - value.
            lookup.append(
                (0..<256).map { sample in
                    let value = low + Double(sample) / 255 * (high - low)
                    return components == 1 ? 1 - value : value
                })
        }
        let columns = (width + box - 1) / box
        var highest = 0.0
        var sums = [Double](repeating: 0, count: columns)
        var counts = [Int](repeating: 0, count: columns)
        for y in 0..<height {
            let row = y * width * components
            for x in 0..<width {
                var total = 0.0
                for component in 0..<components {
                    total += lookup[component][Int(samples[row + x * components + component])]
                }
                sums[x / box] += total
                counts[x / box] += 1
            }
            if (y + 1) % box == 0 || y == height - 1 {
                for column in 0..<columns where counts[column] > 0 {
                    highest = max(highest, sums[column] / Double(counts[column]))
                }
                sums = [Double](repeating: 0, count: columns)
                counts = [Int](repeating: 0, count: columns)
            }
        }
        return .success(highest * 100)
    }
}

/// A count from a PDF number: whole, 0 for anything negative, not finite or over a billion
/// (a hostile file's `/Width 1e300` must not trap a conversion).
private func count(_ value: Double?) -> Int {
    guard let value, value.isFinite, value >= 0, value <= 1_000_000_000 else { return 0 }
    return Int(value)
}
