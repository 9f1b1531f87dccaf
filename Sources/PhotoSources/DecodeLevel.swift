import FastPath
import ImageCore

/// Which pixels of a photo a fast executor's plan reads: the photo decoded at 1/`shrink`
/// (a JPEG's DCT scale; 1 for an HEIF photo, which HEVC cannot decode smaller), then halved
/// `halvings` times by a 2 x 2 box (`PixelKernels.halved`). A print reads its level with no
/// halving; its sample reads a level of the same decode halved while it still covers the
/// sample, so that one decode serves both (a card decodes its photo once) and a preview,
/// which keeps the levels of a photo (`DecodedPhotos`), reads the smallest one covering its
/// window and makes the same bytes as the card's sample.
package struct DecodeLevel: Hashable, CustomStringConvertible {
    /// The DCT scale of the decode (1, 2, 4, 8).
    package let shrink: Int
    /// The halvings of that decode.
    package let halvings: Int

    package init(shrink: Int, halvings: Int) {
        self.shrink = shrink
        self.halvings = halvings
    }

    /// The size of this level of a decode of `decoded` size (each halving rounds up).
    package func size(fromDecoded decoded: (width: Int, height: Int)) -> (width: Int, height: Int) {
        var size = decoded
        for _ in 0..<halvings { size = ((size.width + 1) / 2, (size.height + 1) / 2) }
        return size
    }

    /// The most halvings of a decode of `decoded` size that still leave at least `atLeast`
    /// (and no more than `limit`, so a level is never smaller than a few pixels).
    package static func halvings(of decoded: (width: Int, height: Int), atLeast: Size, limit: Int = 6) -> Int {
        var count = 0
        var size = decoded
        while count < limit, (size.width + 1) / 2 >= atLeast.width, (size.height + 1) / 2 >= atLeast.height {
            size = ((size.width + 1) / 2, (size.height + 1) / 2)
            count += 1
        }
        return count
    }

    /// This level of the rows of a decode `band` holds, its first row being row `top` of a
    /// decode `decodedHeight` rows tall: the band cut to whole groups of 2^`halvings` rows
    /// (the last group may be short only at the decode's bottom), so that every level row is
    /// the one the whole decode's halving makes. Returns the level rows and the first one's
    /// index.
    package func halve(_ band: MemoryImage, top: Int, decodedHeight: Int) -> (image: MemoryImage, top: Int) {
        guard halvings > 0 else { return (band, top) }
        let group = 1 << halvings
        let first = (top + group - 1) / group * group
        let end = top + band.height >= decodedHeight ? top + band.height : (top + band.height) / group * group
        guard end > first else {
            return (MemoryImage(width: (band.width + group - 1) / group, height: 0, pixels: []), first / group)
        }
        let whole = first == top && end == top + band.height
        let rows = whole ? band : band.cropped(x: 0, y: first - top, width: band.width, height: end - first)
        return (PixelKernels.halved(rows, times: halvings), first / group)
    }

    package var description: String { "1/\(shrink) halved \(halvings)" }
}
