/// Reads a PDF content stream (ISO 32000-1, 7.8.2) as the painting it describes: each
/// operator with its operands, the transformation matrix in force (`q`, `Q`, `cm`). What
/// preflight needs to find the images drawn and at what size, and the colours set.
///
/// Hand-written because libqpdf's C API has no content-stream tokenizer (its C++ one is
/// out of reach from Swift). Strings, arrays and dictionaries are read and skipped as
/// operands; inline images (`BI ... ID ... EI`) are skipped whole.
public struct PDFContentScanner {
    /// An operand: a number, a name (without its slash), or anything else.
    public enum Operand: Equatable {
        case number(Double)
        case name(String)
        case other
    }

    /// A 2-D affine matrix `[a b c d e f]` as PDF writes it.
    public struct Matrix: Equatable, Sendable {
        public var a, b, c, d, e, f: Double
        public static let identity = Matrix(a: 1, b: 0, c: 0, d: 1, e: 0, f: 0)

        public init(a: Double, b: Double, c: Double, d: Double, e: Double, f: Double) {
            (self.a, self.b, self.c, self.d, self.e, self.f) = (a, b, c, d, e, f)
        }

        /// `self` applied first, then `other` (PDF's `cm` premultiplies the CTM).
        public func then(_ other: Matrix) -> Matrix {
            Matrix(
                a: a * other.a + b * other.c, b: a * other.b + b * other.d, c: c * other.a + d * other.c,
                d: c * other.b + d * other.d, e: e * other.a + f * other.c + other.e,
                f: e * other.b + f * other.d + other.f)
        }

        /// How long the unit vectors along x and y become (an image's drawn width and height).
        public var scales: (x: Double, y: Double) { ((a * a + b * b).squareRoot(), (c * c + d * d).squareRoot()) }
    }

    /// Most graphics states kept on the `q` stack (PDF's own limit is 28); deeper pushes are
    /// counted, not stored, so a stream of millions of `q` costs no memory.
    public static let maxSavedStates = 256
    /// Most operands kept before an operator (the last ones: an operator reads its own).
    public static let maxOperands = 64

    private let bytes: [UInt8]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Calls `visit` with each operator, its operands and the matrix in force, in order.
    public func scan(from start: Matrix = .identity, _ visit: (String, [Operand], Matrix) -> Void) {
        var index = 0
        var operands: [Operand] = []
        var matrix = start
        var saved: [Matrix] = []
        var unsaved = 0
        while let token = nextToken(&index) {
            switch token {
            case .operand(let operand):
                if operands.count == Self.maxOperands { operands.removeFirst() }
                operands.append(operand)
            case .operator(let name):
                switch name {
                case "q" where saved.count == Self.maxSavedStates: unsaved += 1
                case "q": saved.append(matrix)
                case "Q" where unsaved > 0: unsaved -= 1
                case "Q": matrix = saved.popLast() ?? matrix
                case "cm":
                    let numbers = operands.compactMap { if case .number(let value) = $0 { value } else { nil } }
                    if numbers.count == 6 {
                        matrix = Matrix(
                            a: numbers[0], b: numbers[1], c: numbers[2], d: numbers[3], e: numbers[4], f: numbers[5]
                        ).then(matrix)
                    }
                case "BI":
                    skipInlineImage(&index)
                default: break
                }
                visit(name, operands, matrix)
                operands.removeAll(keepingCapacity: true)
            }
        }
    }

    private enum Token {
        case operand(Operand)
        case `operator`(String)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { [0, 9, 10, 12, 13, 32].contains(byte) }
    private static func isDelimiter(_ byte: UInt8) -> Bool { Array("()<>[]{}/%".utf8).contains(byte) }

    private func nextToken(_ index: inout Int) -> Token? {
        while index < bytes.count {
            let byte = bytes[index]
            if Self.isWhitespace(byte) {
                index += 1
                continue
            }
            if byte == UInt8(ascii: "%") {  // a comment, to the end of the line
                while index < bytes.count, bytes[index] != 10, bytes[index] != 13 { index += 1 }
                continue
            }
            switch byte {
            case UInt8(ascii: "/"):
                index += 1
                let start = index
                while index < bytes.count, !Self.isWhitespace(bytes[index]), !Self.isDelimiter(bytes[index]) {
                    index += 1
                }
                return .operand(.name(String(decoding: bytes[start..<index], as: UTF8.self)))
            case UInt8(ascii: "("):
                skipLiteralString(&index)
                return .operand(.other)
            case UInt8(ascii: "<"):
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "<") {
                    skipNested(&index, open: "<<", close: ">>")
                } else {
                    while index < bytes.count, bytes[index] != UInt8(ascii: ">") { index += 1 }
                    index += 1
                }
                return .operand(.other)
            case UInt8(ascii: "["):
                skipNested(&index, open: "[", close: "]")
                return .operand(.other)
            case UInt8(ascii: "]"), UInt8(ascii: ">"), UInt8(ascii: ")"), UInt8(ascii: "{"), UInt8(ascii: "}"):
                index += 1  // stray delimiter: ignored
                continue
            default:
                let start = index
                while index < bytes.count, !Self.isWhitespace(bytes[index]), !Self.isDelimiter(bytes[index]) {
                    index += 1
                }
                let word = String(decoding: bytes[start..<index], as: UTF8.self)
                if let number = Double(word), word.first.map({ $0.isNumber || "+-.".contains($0) }) == true {
                    return .operand(.number(number))
                }
                if word == "true" || word == "false" || word == "null" { return .operand(.other) }
                return .operator(word)
            }
        }
        return nil
    }

    private func skipLiteralString(_ index: inout Int) {
        var depth = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\\") {
                index += 1
            } else if byte == UInt8(ascii: "(") {
                depth += 1
            } else if byte == UInt8(ascii: ")") {
                depth -= 1
                if depth == 0 { return }
            }
        }
    }

    /// Skips an array or dictionary, strings inside included.
    private func skipNested(_ index: inout Int, open: String, close: String) {
        var depth = 0
        let (openBytes, closeBytes) = (Array(open.utf8), Array(close.utf8))
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "(") {
                skipLiteralString(&index)
                continue
            }
            if bytes[index...].starts(with: openBytes) {
                depth += 1
                index += openBytes.count
            } else if bytes[index...].starts(with: closeBytes) {
                depth -= 1
                index += closeBytes.count
                if depth == 0 { return }
            } else {
                index += 1
            }
        }
    }

    /// Skips from after `BI` to after `EI` (the image data may hold any bytes; `EI` counts
    /// when whitespace surrounds it).
    private func skipInlineImage(_ index: inout Int) {
        while index + 2 < bytes.count {
            if Self.isWhitespace(bytes[index]), bytes[index + 1] == UInt8(ascii: "E"),
                bytes[index + 2] == UInt8(ascii: "I"),
                index + 3 >= bytes.count || Self.isWhitespace(bytes[index + 3])
            {
                index += 3
                return
            }
            index += 1
        }
        index = bytes.count
    }
}
