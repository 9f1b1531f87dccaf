import NIOCore

/// A `multipart/form-data` body (RFC 7578) read as it arrives, bounded before anything is
/// parsed: at most `maxParts` parts, each part's header block at most `maxHeaderBytes` bytes
/// and `maxHeaderFields` fields. One pass over the bytes: every search resumes where the last
/// one stopped (Knuth-Morris-Pratt, linear in what it reads), nothing is removed from the front
/// of a buffer, and a form that breaks a bound is refused as soon as the bytes that break it
/// arrive, without waiting for the rest.
///
/// Why our own: the OpenAPI runtime's multipart parser runs before any bound of ours, traps on
/// a part with 65,535 header fields (swift-http-types' "Too many fields") and removes consumed
/// bytes from the front of the whole body (quadratic: 40,000 parts took 5.8 s of CPU). An
/// upload needs one file part and a few fields; this reads just that.
struct MultipartFormReader {
    /// Parts a form may have: the photo and a handful of fields beside it.
    static let maxParts = 8
    /// Bytes of one part's header block (its lines, up to the empty line).
    static let maxHeaderBytes = 8 << 10
    /// Header fields of one part.
    static let maxHeaderFields = 32

    /// Why a form is refused, in words for the client.
    enum Refusal: Error, Equatable, CustomStringConvertible {
        case noBoundary
        case tooManyParts
        case headerTooLarge(part: Int)
        case tooManyFields(part: Int, fields: Int)
        case malformed(String)
        case noFile
        case severalFiles

        var description: String {
            switch self {
            case .noBoundary:
                "multipart/form-data needs a boundary parameter of 1 to 70 characters (RFC 2046); none usable was given."
            case .tooManyParts:
                "The form has more than \(MultipartFormReader.maxParts) parts; send the photo and at most \(MultipartFormReader.maxParts - 1) fields."
            case .headerTooLarge(let part):
                "The form's part \(part) has a header block over \(MultipartFormReader.maxHeaderBytes) bytes, the most a part may have."
            case .tooManyFields(let part, let fields):
                "The form's part \(part) has \(fields) header fields; a part may have \(MultipartFormReader.maxHeaderFields) at most."
            case .malformed(let reason):
                "The form cannot be read: \(reason). It must be multipart/form-data whose parts each have a Content-Disposition with a name, ending with its boundary."
            case .noFile: "The form has no file part; add the photo."
            case .severalFiles: "The form has more than one file; send one photo."
            }
        }

        /// Whether the form was read whole and only its contents are wrong (422), rather than
        /// its shape (400).
        var isContent: Bool { self == .noFile || self == .severalFiles }
    }

    /// One part read whole: where its content is in the body, and whether it is a file.
    struct Part: Equatable {
        let content: Range<Int>
        let isFile: Bool
    }

    private enum State {
        /// Before the first delimiter.
        case preamble
        /// Just after a delimiter: `--` ends the form, line padding and CRLF begin a part.
        case afterDelimiter
        /// In a part's header block, which began at `start`.
        case headers(start: Int)
        /// In a part's content, which began at `start`.
        case content(start: Int, isFile: Bool)
        /// After the closing delimiter: the epilogue, ignored.
        case done
    }

    /// `CRLF--boundary`: what ends a part's content.
    private let delimiter: [UInt8]
    private var state = State.preamble
    /// Where the next search starts, in the body's bytes.
    private var position = 0
    private(set) var parts: [Part] = []
    /// Parts begun (their headers read or being read).
    private var begun = 0

    /// A reader for a body of `contentType` (its `boundary` parameter).
    /// - Throws: `Refusal.noBoundary` when the type has no usable boundary.
    init(contentType: String) throws(Refusal) {
        guard let boundary = Self.boundary(of: contentType) else { throw .noBoundary }
        delimiter = Array("\r\n--".utf8) + Array(boundary.utf8)
    }

    /// The `boundary` parameter of a media type: 1 to 70 characters of RFC 2046's `bchars`,
    /// quoted or not.
    static func boundary(of contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmed(of: " \t").lowercased() == "boundary" else { continue }
            var value = pair[1].trimmed(of: " \t")
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'()+_,-./:=? ".utf8)
            guard (1...70).contains(value.utf8.count), value.utf8.allSatisfy(allowed.contains), value.last != " "
            else { return nil }
            return value
        }
        return nil
    }

    /// Reads what `body` (the whole body so far: the same bytes as before, and more) adds.
    /// - Throws: `Refusal` as soon as the form breaks a bound or its shape.
    mutating func read(_ body: ByteBuffer) throws(Refusal) {
        let result = body.withUnsafeReadableBytes { bytes in
            Result { () throws(Refusal) in try step(bytes) }
        }
        try result.get()
    }

    /// Reads on from `position` through `bytes`, as far as they allow.
    private mutating func step(_ bytes: UnsafeRawBufferPointer) throws(Refusal) {
        while true {
            switch state {
            case .preamble:
                // The first delimiter may open the body without the CRLF before it.
                let opening = delimiter.dropFirst(2)
                if bytes.count >= opening.count, bytes.prefix(opening.count).elementsEqual(opening) {
                    position = opening.count
                    state = .afterDelimiter
                    continue
                }
                guard let found = Self.find(delimiter, in: bytes, from: position) else {
                    guard bytes.count <= Self.maxHeaderBytes else {
                        throw .malformed("no boundary within its first \(Self.maxHeaderBytes) bytes")
                    }
                    position = max(0, bytes.count - delimiter.count + 1)
                    return
                }
                position = found + delimiter.count
                state = .afterDelimiter
            case .afterDelimiter:
                guard bytes.count - position >= 2 else { return }
                if bytes[position] == UInt8(ascii: "-"), bytes[position + 1] == UInt8(ascii: "-") {
                    state = .done
                    return
                }
                // Transport padding (spaces, tabs), then CRLF.
                var index = position
                while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
                    index += 1
                    guard index - position <= 64 else { throw .malformed("a boundary line runs on") }
                }
                guard bytes.count - index >= 2 else { return }
                guard bytes[index] == 13, bytes[index + 1] == 10 else {
                    throw .malformed("a boundary is not followed by a line break")
                }
                begun += 1
                guard begun <= Self.maxParts else { throw .tooManyParts }
                position = index + 2
                state = .headers(start: position)
            case .headers(let start):
                // An empty header block: the line break right after the boundary's.
                let end: Int
                if bytes.count - start >= 2, bytes[start] == 13, bytes[start + 1] == 10 {
                    end = start
                } else if let found = Self.find(Self.blankLine, in: bytes, from: max(start, position)) {
                    end = found + 2
                } else {
                    // A block of `maxHeaderBytes` ends with its CR LF at most there, followed by
                    // the blank line's CR LF: past that with no blank line, it is too long.
                    guard bytes.count - start <= Self.maxHeaderBytes + 1 else { throw .headerTooLarge(part: begun) }
                    position = max(start, bytes.count - 3)
                    return
                }
                guard end - start <= Self.maxHeaderBytes else { throw .headerTooLarge(part: begun) }
                let isFile = try Self.disposition(of: Array(bytes[start..<end]), part: begun)
                position = end + 2
                state = .content(start: position, isFile: isFile)
            case .content(let start, let isFile):
                guard let found = Self.find(delimiter, in: bytes, from: position) else {
                    position = max(start, bytes.count - delimiter.count + 1)
                    return
                }
                parts.append(Part(content: start..<found, isFile: isFile))
                position = found + delimiter.count
                state = .afterDelimiter
            case .done:
                return
            }
        }
    }

    /// CRLF CRLF: the end of a header block.
    private static let blankLine = Array("\r\n\r\n".utf8)

    /// The file's bytes, where they are in the body: the part with a file name, or the form's
    /// only part.
    /// - Throws: `Refusal` for a form that did not end with its closing boundary, with no
    ///   file, or with more than one.
    func file() throws(Refusal) -> Range<Int> {
        guard case .done = state else { throw .malformed("it ends before its closing boundary") }
        let files = parts.filter(\.isFile)
        if files.count > 1 { throw .severalFiles }
        if let file = files.first { return file.content }
        guard parts.count == 1, let only = parts.first else { throw .noFile }
        return only.content
    }

    /// Whether a part's header block (its lines, each ending CRLF) names a file, after
    /// checking it has at most `maxHeaderFields` fields and a `form-data` disposition with a
    /// name.
    private static func disposition(of block: [UInt8], part: Int) throws(Refusal) -> Bool {
        var lines = block.split(separator: 10, omittingEmptySubsequences: true).map { line in
            line.last == 13 ? line.dropLast() : line
        }
        lines.removeAll { $0.isEmpty }
        guard lines.count <= maxHeaderFields else { throw .tooManyFields(part: part, fields: lines.count) }
        var disposition: String?
        for line in lines {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon != line.startIndex,
                line.first != UInt8(ascii: " "), line.first != UInt8(ascii: "\t")
            else { throw .malformed("part \(part) has a header line that is not 'Name: value'") }
            let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
            if name == "content-disposition" {
                disposition = String(decoding: line[line.index(after: colon)...], as: UTF8.self)
            }
        }
        guard let disposition else { throw .malformed("part \(part) has no Content-Disposition") }
        let fields = disposition.split(separator: ";").map { $0.trimmed(of: " \t") }
        guard fields.first?.lowercased() == "form-data" else {
            throw .malformed("part \(part)'s Content-Disposition is not form-data")
        }
        let names = fields.dropFirst().compactMap { $0.split(separator: "=", maxSplits: 1).first?.lowercased() }
        guard names.contains("name") else { throw .malformed("part \(part)'s Content-Disposition has no name") }
        return names.contains("filename") || names.contains("filename*")
    }

    /// Where `needle` first occurs in `bytes` at or after `from`, or nil: Knuth-Morris-Pratt,
    /// linear in the bytes searched whatever they hold (a naive search costs a comparison of
    /// the whole delimiter at each byte of a body made of near-delimiters).
    private static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer, from: Int) -> Int? {
        guard !needle.isEmpty, from < bytes.count else { return nil }
        let fallback = failure(needle)
        var matched = 0
        for index in from..<bytes.count {
            let byte = bytes[index]
            while matched > 0, needle[matched] != byte { matched = fallback[matched - 1] }
            if needle[matched] == byte { matched += 1 }
            if matched == needle.count { return index - needle.count + 1 }
        }
        return nil
    }

    /// KMP's failure function of `needle`: for each prefix, the longest proper prefix that is
    /// also its suffix.
    private static func failure(_ needle: [UInt8]) -> [Int] {
        var table = [Int](repeating: 0, count: needle.count)
        var length = 0
        for index in 1..<max(1, needle.count) {
            while length > 0, needle[index] != needle[length] { length = table[length - 1] }
            if needle[index] == needle[length] { length += 1 }
            table[index] = length
        }
        return table
    }
}
