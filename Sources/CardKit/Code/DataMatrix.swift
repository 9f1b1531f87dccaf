internal import CDataMatrix

/// A Data Matrix symbol (ECC 200, square, Base256 encodation), made from bytes and found in
/// greyscale pixels by libdmtx (`CDataMatrix`).
///
/// libdmtx rather than zxing-cpp (Debian has both): it is C with a stable C API (Debian's
/// zxing-cpp 1.4 is C++ only: a plugin like the face detector's would be needed), and in a
/// trial Debian's zxing-cpp read none of our symbols, not even a clean one, where libdmtx read
/// every one. Its whole-picture search is slow and erratic, hence the locator in `CDataMatrix`.
public struct DataMatrix: Sendable, Equatable {
    /// Modules on a side.
    public let side: Int
    /// The modules row by row from the top left: true is dark. The finder pattern is the
    /// solid left column and bottom row.
    public let modules: [Bool]

    /// The largest square symbol's side (144 modules).
    static let largestSide = 144

    /// The symbol for `bytes`.
    /// - Throws: `DataMatrixError.tooLong` when they do not fit the largest symbol (1,556
    ///   bytes), `.library` when libdmtx fails.
    public init(bytes: [UInt8]) throws(DataMatrixError) {
        var grid = [UInt8](repeating: 0, count: Self.largestSide * Self.largestSide)
        var side: Int32 = 0
        let status = bytes.withUnsafeBufferPointer { input in
            grid.withUnsafeMutableBufferPointer { output in
                CDataMatrix_encode(input.baseAddress, input.count, output.baseAddress, output.count, &side)
            }
        }
        switch status {
        case 0: break
        case -1: throw .tooLong(bytes.count)
        default: throw .library
        }
        self.side = Int(side)
        modules = grid.prefix(Int(side) * Int(side)).map { $0 != 0 }
    }

    /// Whether the module at `row`, `column` (from the top left) is dark.
    public func isDark(row: Int, column: Int) -> Bool { modules[row * side + column] }

    /// The dark modules as runs along each row: (row, first column, length), so that a
    /// symbol is drawn with few rectangles.
    public var darkRuns: [(row: Int, column: Int, length: Int)] {
        var runs: [(row: Int, column: Int, length: Int)] = []
        for row in 0..<side {
            var column = 0
            while column < side {
                guard isDark(row: row, column: column) else {
                    column += 1
                    continue
                }
                let start = column
                while column < side, isDark(row: row, column: column) { column += 1 }
                runs.append((row, start, column - start))
            }
        }
        return runs
    }

    /// The message of a symbol in `pixels` (greyscale, `width` x `height`, one byte a pixel,
    /// row 0 at the top) that starts with `prefix`, skipping any other symbol (a stamp's or
    /// a franking machine's code); nil when none is found within `milliseconds` of this
    /// thread's CPU time (on a busy machine the search gets as far, later).
    /// - Parameters:
    ///   - side: the symbol's side in modules to look for (nil: any square size).
    ///   - edges: the range of the symbol's side in pixels to look for (nil: any).
    ///   - shrink: read every `shrink`th pixel only (1: all): faster, for large modules.
    ///   - places: how many of the places most like a symbol (the windows of 96 pixels with
    ///     the most edges) are read first, a box of 400 pixels round each, `placeMilliseconds`
    ///     each at most, before the whole picture (0 to 16).
    public static func find(
        in pixels: [UInt8], width: Int, height: Int, prefix: [UInt8], side: Int? = nil,
        edges: ClosedRange<Int>? = nil, shrink: Int = 1, places: Int = 0, placeMilliseconds: Int = 40,
        milliseconds: Int
    ) -> [UInt8]? {
        let (area, overflow) = width.multipliedReportingOverflow(by: height)
        guard width >= 8, height >= 8, width <= Int(Int32.max), height <= Int(Int32.max), !overflow,
            pixels.count >= area
        else { return nil }
        var message = [UInt8](repeating: 0, count: 2048)
        var length = 0
        let status = pixels.withUnsafeBufferPointer { input in
            prefix.withUnsafeBufferPointer { start in
                message.withUnsafeMutableBufferPointer { output in
                    CDataMatrix_decode(
                        input.baseAddress, Int32(width), Int32(height), Int32(width), start.baseAddress, start.count,
                        Int32(clamping: max(0, milliseconds)), Int32(clamping: max(0, placeMilliseconds)),
                        Int32(clamping: edges?.lowerBound ?? 0), Int32(clamping: edges?.upperBound ?? 0),
                        Int32(clamping: side ?? 0), Int32(clamping: max(1, shrink)), Int32(min(16, max(0, places))),
                        output.baseAddress, output.count, &length)
                }
            }
        }
        return status == 0 ? Array(message.prefix(length)) : nil
    }
}

/// Why a Data Matrix symbol cannot be made.
public enum DataMatrixError: Error, Sendable, Equatable, CustomStringConvertible {
    /// More bytes than the largest symbol holds.
    case tooLong(Int)
    /// libdmtx failed.
    case library

    public var description: String {
        switch self {
        case .tooLong(let count): "\(count) bytes do not fit a Data Matrix symbol (at most 1556)"
        case .library: "libdmtx could not make the Data Matrix symbol"
        }
    }
}
