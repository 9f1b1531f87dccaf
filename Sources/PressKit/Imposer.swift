import PressPDF

/// Puts finished postcards (the PDFs `render --press` writes) N-up on press sheets: for
/// every sheet of fronts a sheet of backs, each back mirrored behind its front, every card
/// a Form XObject of its page with its bleed, crop marks around the block. The sheets keep
/// the postcards' PDF/X identification and output intent, and a TrimBox at the sheet's edge.
public struct Imposer {
    /// One postcard to place.
    public struct Postcard {
        public let name: String
        public let bytes: [UInt8]

        public init(name: String, bytes: [UInt8]) {
            self.name = name
            self.bytes = bytes
        }
    }

    public let sheet: SheetLayout.Sheet

    public init(sheet: SheetLayout.Sheet) {
        self.sheet = sheet
    }

    /// The imposed sheets as one PDF (front, back, front, back...), and the layout used: the
    /// postcards fill the sheets in order, each sheet's positions row by row from the top left.
    /// - Throws: `ImpositionError` naming the postcard for a file that is not a postcard of
    ///   the first one's size, `SheetLayoutError` when no card fits, `QPDFDocument.Failure`.
    public func impose(_ postcards: [Postcard]) throws -> (pdf: [UInt8], layout: SheetLayout) {
        try impose(postcards) { layout in
            stride(from: 0, to: postcards.count, by: layout.perSheet).map {
                $0..<min(postcards.count, $0 + layout.perSheet)
            }
        }
    }

    /// The imposed sheets as one PDF, one sheet (fronts, then backs) per group of `sheets`, in
    /// order: a group's postcards take its sheet's first positions (row by row from the top
    /// left on the fronts), a group shorter than the sheet leaves its last positions empty,
    /// and each back still lies behind its front. This is how a cut-and-stack run
    /// (`CutAndStack.grouped(_:)`) is imposed.
    /// - Throws: `ImpositionError` for no sheets, a sheet with no postcards or more than the
    ///   layout holds, or a postcard not of the first one's size; `SheetLayoutError` when no
    ///   card fits; `QPDFDocument.Failure`.
    public func impose(sheets: [[Postcard]]) throws -> (pdf: [UInt8], layout: SheetLayout) {
        if let empty = sheets.firstIndex(where: \.isEmpty) {
            throw ImpositionError(
                message: "sheet \(empty + 1) of \(sheets.count) has no postcards; each sheet needs one")
        }
        let postcards = sheets.flatMap { $0 }
        return try impose(postcards) { layout in
            var start = 0
            return try sheets.enumerated().map { number, group in
                guard group.count <= layout.perSheet else {
                    throw ImpositionError(
                        message: "sheet \(number + 1) has \(group.count) postcards, but a sheet holds "
                            + "\(layout.perSheet) (\(layout.columns) x \(layout.rows))")
                }
                defer { start += group.count }
                return start..<(start + group.count)
            }
        }
    }

    /// The layout the postcards of `postcard`'s size take on the sheet (what
    /// `impose(sheets:)`'s groups must fit: `perSheet` postcards each).
    /// - Throws: `ImpositionError` naming the postcard when it is not one, `SheetLayoutError`
    ///   when no card fits.
    public func layout(for postcard: Postcard) throws -> SheetLayout {
        let input: QPDFDocument
        do {
            input = try QPDFDocument(reading: postcard.bytes, name: postcard.name)
        } catch {
            throw ImpositionError(message: "\(postcard.name): not a readable PDF (\(error))")
        }
        let size = try Self.size(of: input, name: postcard.name)
        return try SheetLayout(sheet: sheet, cardWidth: size.width, cardHeight: size.height, bleed: size.bleed)
    }

    /// `postcards` read, checked to be of one size and imposed, one sheet per range of
    /// `groups` (given the layout, in sheet order).
    private func impose(_ postcards: [Postcard], groups: (SheetLayout) throws -> [Range<Int>]) throws -> (
        pdf: [UInt8], layout: SheetLayout
    ) {
        guard let first = postcards.first else { throw ImpositionError(message: "no postcards to impose") }
        let inputs = try postcards.map { postcard in
            do {
                return try QPDFDocument(reading: postcard.bytes, name: postcard.name)
            } catch {
                throw ImpositionError(message: "\(postcard.name): not a readable PDF (\(error))")
            }
        }
        let size = try Self.size(of: inputs[0], name: first.name)
        for (index, input) in inputs.enumerated().dropFirst() {
            let other = try Self.size(of: input, name: postcards[index].name)
            guard abs(other.width - size.width) < 0.5, abs(other.height - size.height) < 0.5,
                abs(other.bleed - size.bleed) < 0.5
            else {
                throw ImpositionError(
                    message: "\(postcards[index].name): \(Self.describe(other)), but \(first.name) is "
                        + "\(Self.describe(size)); a sheet holds postcards of one size")
            }
        }
        let layout = try SheetLayout(sheet: sheet, cardWidth: size.width, cardHeight: size.height, bleed: size.bleed)
        let ranges = try groups(layout)
        // libqpdf reads copied objects from their documents until the copy is written, and a
        // document copied from must outlive the copy (destroying it first crashes in qpdf):
        // the sheets are made and released inside, the postcards released after.
        let pdf = try withExtendedLifetime(inputs) {
            try self.sheets(of: inputs, names: postcards.map(\.name), groups: ranges, layout: layout)
        }
        return (pdf, layout)
    }

    /// The keys of a postcard's `/Info` that name its recipient (`destination(of:)`): left
    /// out of the sheets' `/Info`, which is copied from the first postcard, so that no
    /// recipient's name or address ends up in a sheet's metadata.
    public static let destinationInfoKeys: Set<String> = [
        "/DestinationCountry", "/DestinationPostcode", "/DestinationName", "/MailClass",
    ]

    /// The sheets' PDF: `inputs` (named `names` in messages) placed by `layout`, one sheet
    /// per range of `groups`, a range's first input in the sheet's first position.
    private func sheets(of inputs: [QPDFDocument], names: [String], groups: [Range<Int>], layout: SheetLayout) throws
        -> [UInt8]
    {
        let output = try QPDFDocument()
        let source = inputs[0]
        // The sheets inherit the postcards' identification and printing condition.
        if let intents = source.value("/OutputIntents", in: source.root) {
            let copied = try output.array(try (source.items(intents) ?? []).map { try output.copy($0, from: source) })
            try output.set("/OutputIntents", of: output.root, to: copied)
        }
        if let info = source.value("/Info", in: source.trailer) {
            let keys = source.keys(info)
            if keys.contains(where: Self.destinationInfoKeys.contains) {
                // A fresh dictionary without the recipient's keys (the copy of one with them
                // would carry them: libqpdf copies a dictionary whole).
                let copied = try output.indirect("<< >>")
                for key in keys where !Self.destinationInfoKeys.contains(key) {
                    if let value = source.value(key, in: info) {
                        try output.set(key, of: copied, to: try output.copy(value, from: source))
                    }
                }
                try output.set("/Info", of: output.trailer, to: copied)
            } else {
                try output.set("/Info", of: output.trailer, to: try output.copy(info, from: source))
            }
        }
        if let metadata = source.value("/Metadata", in: source.root) {
            try output.set("/Metadata", of: output.root, to: try output.copy(metadata, from: source))
        }
        let version = source.value("/Metadata", in: source.root) == nil ? "1.3" : "1.6"

        for group in groups {
            let batch = Array(inputs[group])
            var fronts: [(String, QPDFDocument.Object)] = []
            var frontContent = ""
            var backs: [(String, QPDFDocument.Object)] = []
            var backContent = ""
            for (slot, input) in batch.enumerated() {
                let name = names[group.lowerBound + slot]
                let front = try form(page: 0, of: input, named: name, into: output)
                let key = "/Card\(slot + 1)"
                fronts.append((key, front.object))
                let origin = layout.origin(of: slot, mirrored: false)
                frontContent +=
                    "q 1 0 0 1 \(PDFSyntax.number(origin.x)) \(PDFSyntax.number(origin.y)) cm \(key) Do Q\n"
                guard input.pageCount > 1 else { continue }
                let back = try form(page: 1, of: input, named: name, into: output)
                backs.append((key, back.object))
                let mirrored = layout.origin(of: slot, mirrored: true)
                if abs(back.width - front.width) < 0.5 {
                    backContent +=
                        "q 1 0 0 1 \(PDFSyntax.number(mirrored.x)) \(PDFSyntax.number(mirrored.y)) cm \(key) Do Q\n"
                } else {
                    // A portrait card's back is landscape: turned a quarter anticlockwise into the cell.
                    backContent +=
                        "q 0 1 -1 0 \(PDFSyntax.number(mirrored.x + layout.cardWidth)) \(PDFSyntax.number(mirrored.y)) cm \(key) Do Q\n"
                }
            }
            let marks = "q 0 0 0 1 K 0.25 w\n\(layout.marks)S Q\n"
            try addSheet(output, layout: layout, content: frontContent + marks, forms: fronts)
            if !backs.isEmpty { try addSheet(output, layout: layout, content: backContent + marks, forms: backs) }
        }
        return try output.write(version: version)
    }

    /// A postcard's size with its bleed, and the bleed, in points.
    private static func size(of document: QPDFDocument, name: String) throws -> (
        width: Double, height: Double, bleed: Double
    ) {
        let page = document.page(0)
        func box(_ key: String) -> [Double]? {
            let numbers = document.value(key, in: page).flatMap(document.items)?.compactMap(document.number)
            return numbers?.count == 4 ? numbers : nil
        }
        guard document.pageCount >= 1, let media = box("/MediaBox"), let trim = box("/TrimBox") else {
            throw ImpositionError(message: "\(name): not a postcard (no page with a TrimBox)")
        }
        let bleedBox = box("/BleedBox") ?? media
        let size = (bleedBox[2] - bleedBox[0], bleedBox[3] - bleedBox[1], trim[0] - bleedBox[0])
        // Up to 200 inches (PDF's own page limit), bleed less than half the card.
        guard (1...14400).contains(size.0), (1...14400).contains(size.1), size.2 >= 0, size.2 < min(size.0, size.1) / 2
        else {
            throw ImpositionError(message: "\(name): not a postcard (its BleedBox and TrimBox make no card)")
        }
        return size
    }

    private static func describe(_ size: (width: Double, height: Double, bleed: Double)) -> String {
        let millimetres = { (points: Double) in Preflight.rounded(points / 72 * 25.4) }
        return "\(millimetres(size.width)) x \(millimetres(size.height)) mm with \(millimetres(size.bleed)) mm bleed"
    }

    /// Page `page` of `input` as a Form XObject of `output`: its content, its resources
    /// (copied with everything they refer to), its bleed box as the form's box.
    /// - Throws: `ImpositionError` naming the postcard (`name`) when the page cannot be read.
    private func form(page index: Int, of input: QPDFDocument, named name: String, into output: QPDFDocument) throws
        -> (
            object: QPDFDocument.Object, width: Double
        )
    {
        let page = input.page(index)
        let numbers =
            (input.value("/BleedBox", in: page) ?? input.value("/MediaBox", in: page)).flatMap(input.items)?
            .compactMap(input.number) ?? []
        guard numbers.count == 4 else {
            throw ImpositionError(message: "\(name): page \(index + 1) has no MediaBox")
        }
        let copied = try output.copy(page, from: input)
        var entries: [(String, QPDFDocument.Object)] = [
            ("/Type", try output.object("/XObject")), ("/Subtype", try output.object("/Form")),
            ("/BBox", try output.object("[\(numbers.map(PDFSyntax.number).joined(separator: " "))]")),
        ]
        if let resources = output.value("/Resources", in: copied) { entries.append(("/Resources", resources)) }
        // The form's 0, 0 at the bleed box's corner.
        if numbers[0] != 0 || numbers[1] != 0 {
            entries.append(
                (
                    "/Matrix",
                    try output.object(
                        "[1 0 0 1 \(PDFSyntax.number(-numbers[0])) \(PDFSyntax.number(-numbers[1]))]")
                ))
        }
        let content: [UInt8]
        do {
            content = try input.contents(of: page)
        } catch {
            throw ImpositionError(message: "\(name): page \(index + 1)'s content cannot be read (\(error))")
        }
        let form = try output.stream(content, entries: entries)
        return (form, numbers[2] - numbers[0])
    }

    private func addSheet(
        _ output: QPDFDocument, layout: SheetLayout, content: String, forms: [(String, QPDFDocument.Object)]
    ) throws {
        let box = "[0 0 \(PDFSyntax.number(layout.width)) \(PDFSyntax.number(layout.height))]"
        try output.addPage("/MediaBox \(box) /TrimBox \(box) /BleedBox \(box)", xObjects: forms, content: content)
    }
}

/// Postcards that cannot be imposed together.
public struct ImpositionError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }

    /// `message` names the postcard (its file or card id) and says why.
    public init(message: String) {
        self.message = message
    }
}
