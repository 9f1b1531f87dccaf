import ImageCore
import VipsKit

/// Finds the Data Matrix code of a card's back in a photo or scan of it (`DataMatrix.find`):
/// a phone's photo turned, at an angle, blurred, or a scanner's page at 150 dpi and more.
///
/// The picture is read at a working size (shrunk on load, or enlarged), grey, then searched for
/// a symbol of the expected side whose message starts with `prefix` (other codes, a stamp's or
/// a franking machine's, are skipped). libdmtx finds a symbol of 4 to 6 pixels a module best,
/// but searching a whole picture takes it from tens of milliseconds to more than a second,
/// swinging with its settings (one picture: 52 ms with the symbol's side bounded at 800
/// pixels, 160 ms at 816). So the places most like a symbol are read first
/// (`DataMatrix.find`'s `places`), then the whole picture. Measured on 2 x 200 degraded backs
/// at 150 dpi (the card filling 80 % of the picture), at 1600 pixels on the longest side: the
/// whole picture alone, 196 of 200 within 150 ms (median 39 ms); the 3 best places first, all
/// 400 (median 4 ms, at most 86). Then 1100 and 2400 pixels, for a card nearer or farther.
public struct BackCodeScanner: Sendable {
    /// What the pictures may be (formats, pixels, bytes).
    public var policy: DecodePolicy
    /// The symbol's side in modules.
    public var side: Int
    /// The bytes the wanted message starts with.
    public var prefix: [UInt8]
    /// The CPU time the searches of one picture may take, in milliseconds (decoding not
    /// counted): shared by the passes in proportion to theirs, and each likely place's box
    /// gets 40 ms of every 900.
    public var milliseconds: Int

    /// The longest side the picture is searched at, how many likely places are read first,
    /// every how many pixels libdmtx reads the whole picture, and the pass's CPU time, in
    /// order (900 ms in all); never enlarged more than 2.5 times.
    static let passes: [(side: Int, places: Int, shrink: Int, milliseconds: Int)] = [
        (1600, 3, 2, 300), (1600, 0, 1, 250), (1100, 3, 1, 150), (2400, 3, 2, 200),
    ]

    public init(policy: DecodePolicy, side: Int, prefix: [UInt8], milliseconds: Int = 900) {
        self.policy = policy
        self.side = side
        self.prefix = prefix
        self.milliseconds = milliseconds
    }

    /// The message of the code in `photo`, or nil when none with the prefix is found.
    /// - Throws: `ImageInputError` (a format the policy refuses, too many pixels),
    ///   `VipsError` (damaged beyond decoding).
    public func message(in photo: ImageData) throws -> [UInt8]? {
        let header = try photo.header(policy: policy)
        let (width, height) = (header.uprightWidth, header.uprightHeight)
        let longest = max(width, height)
        func size(_ working: Int) -> (Int, Int) {
            let scale = min(2.5, Double(working) / Double(longest))
            return (max(8, Int((Double(width) * scale).rounded())), max(8, Int((Double(height) * scale).rounded())))
        }
        // PNG, TIFF and GIF have no shrink-on-load: each pass's decode would read the whole
        // picture again (a 120 MP PNG took 2.7 s of CPU for three). They are decoded once, at
        // the largest size a pass may need, and each pass reduces that copy in memory.
        // JPEG, WebP and HEIF shrink on load: each pass decodes at its own size, the cheaper.
        var largest: VImage?
        if [.png, .tiff, .gif].contains(header.format) {
            let biggest = size(Self.passes.map(\.side).max() ?? 1600)
            largest = try photo.thumbnail(
                policy: policy, width: biggest.0, height: biggest.1, strict: policy.damage == .fail
            ).opaqueSRGB().bandMean().castToUChar().inMemory()
        }
        // CPU time, not the clock's: a scan on a busy machine finds what it finds on an idle one.
        let share = Double(milliseconds) / Double(Self.passes.reduce(0) { $0 + $1.milliseconds })
        var read: (size: [Int], width: Int, height: Int, pixels: [UInt8])?
        var tried: Set<[Int]> = []
        for (working, places, shrink, budget) in Self.passes {
            let size = size(working)
            guard tried.insert([size.0, places, shrink]).inserted else { continue }
            if read?.size != [size.0, size.1] {
                let grey: VImage
                if let largest {
                    grey =
                        largest.width == size.0 && largest.height == size.1
                        ? largest
                        : try largest.resized(
                            scale: Double(size.0) / Double(largest.width),
                            verticalScale: Double(size.1) / Double(largest.height))
                } else {
                    grey = try photo.thumbnail(
                        policy: policy, width: size.0, height: size.1, strict: policy.damage == .fail
                    ).opaqueSRGB().bandMean().castToUChar()
                }
                read = ([size.0, size.1], grey.width, grey.height, try grey.eightBitPixels())
            }
            guard let (_, readWidth, readHeight, pixels) = read else { continue }
            // A module of 2 pixels at the least; the symbol at most two thirds of the picture.
            let edges = (2 * side)...max(2 * side + 1, min(readWidth, readHeight) * 2 / 3)
            if let message = DataMatrix.find(
                in: pixels, width: readWidth, height: readHeight, prefix: prefix, side: side, edges: edges,
                shrink: shrink, places: places, placeMilliseconds: Int(40 * share),
                milliseconds: Int(Double(budget) * share))
            {
                return message
            }
        }
        return nil
    }
}
