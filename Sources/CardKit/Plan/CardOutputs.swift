import ImageCore
import Thumbnails

/// The three files of one side of a card (the old records' `file_source`,
/// `file_source_sample`, `file_source_small`): their sizes and encodings, decided once in the
/// plan and read by both executors and by the backs, so no encode is written as a literal
/// in more than one place.
struct CardOutputs: Equatable {
    /// The print file's size (the card, bleed included) and encoding (nil: a press's PDF,
    /// made from the print pixels afterwards).
    let printSize: Size
    let print: EncodeOptions?
    /// The sample: about 800 px on its long side, JPEG.
    let sampleSize: Size
    /// The small image: 200 px wide (GD-style), PNG.
    let smallSize: Size

    /// The sample's encoding: JPEG quality 85, 4:2:0 (what a web page loads; the fast
    /// encoder also optimises its Huffman tables, as libvips's does).
    static let sample = EncodeOptions(format: .jpeg, quality: 85, chroma: .subsampled)
    /// The small image's encoding: PNG, zlib level 1 with the Paeth filter.
    static let small = EncodeOptions(format: .png)

    /// The outputs of a side of `printSize` under `settings`.
    init(printSize: Size, settings: CardSettings) {
        self.printSize = printSize
        print = settings.printFile.encoding
        let sampleScale = Double(settings.sampleLongSide) / Double(max(printSize.width, printSize.height))
        sampleSize = Size(
            width: CardPlan.scaled(printSize.width, sampleScale), height: CardPlan.scaled(printSize.height, sampleScale)
        )
        let small = Thumbnailer.outputSize(
            sourceWidth: printSize.width, sourceHeight: printSize.height, width: settings.smallWidth, enlarge: false)
        smallSize = Size(width: small.width, height: small.height)
    }

    private init(printSize: Size, print: EncodeOptions?, sampleSize: Size, smallSize: Size) {
        self.printSize = printSize
        self.print = print
        self.sampleSize = sampleSize
        self.smallSize = smallSize
    }

    /// The outputs of a sample plan (`CardPlan.init(sampleOf:art:)`): its pixels are the
    /// sample (no print file), the small image made from them.
    var ofSample: CardOutputs {
        CardOutputs(printSize: sampleSize, print: nil, sampleSize: sampleSize, smallSize: smallSize)
    }
}
