import ImageCore
import VipsKit

/// Finds the Data Matrix code of a card's back in a photo or scan of it (`DataMatrix.find`):
/// a phone's photo turned, at an angle, blurred, or a scanner's page at 150 dpi and more.
///
/// The picture is read shrunk on load to a working size, grey, then searched for a symbol of
/// the expected side whose message starts with `prefix` (other codes, a stamp's or a franking
/// machine's, are skipped). The first size is the one a phone photo of a card needs (the
/// card's code is then 3 to 6 pixels a module); when nothing is found there, the picture is
/// read larger, for a card that fills little of the photo, within the time left.
public struct BackCodeScanner: Sendable {
    /// What the pictures may be (formats, pixels, bytes).
    public var policy: DecodePolicy
    /// The symbol's side in modules.
    public var side: Int
    /// The bytes the wanted message starts with.
    public var prefix: [UInt8]
    /// The time allowed to the searches of one picture (decoding not counted).
    public var milliseconds: Int

    /// The longest sides the picture is searched at, in order (never larger than it is).
    static let workingSides = [1200, 2400]

    public init(policy: DecodePolicy, side: Int, prefix: [UInt8], milliseconds: Int = 600) {
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
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        var tried: Set<Int> = []
        for working in Self.workingSides {
            let scale = min(1, Double(working) / Double(longest))
            let size = (max(8, Int((Double(width) * scale).rounded())), max(8, Int((Double(height) * scale).rounded())))
            guard tried.insert(size.0).inserted else { continue }
            let grey = try photo.thumbnail(policy: policy, width: size.0, height: size.1, strict: false)
                .opaqueSRGB().bandMean().castToUChar()
            let pixels = try grey.eightBitPixels()
            let left = deadline - ContinuousClock.now
            let milliseconds = Int(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            guard milliseconds > 0 else { return nil }
            // A module of 2 pixels at the least; the symbol at most two thirds of the picture.
            let edges = (2 * side)...max(2 * side + 1, min(size.0, size.1) * 2 / 3)
            if let message = DataMatrix.find(
                in: pixels, width: size.0, height: size.1, prefix: prefix, side: side, edges: edges,
                milliseconds: milliseconds)
            {
                return message
            }
        }
        return nil
    }
}
