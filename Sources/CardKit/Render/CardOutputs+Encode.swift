import ImageCore
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension CardOutputs {
    /// The three files of a finished side through libvips (the general executor's fronts and
    /// every back): the print as `print` says (nothing for a press: its PDF is made from the
    /// pixels), the sample resized to its size, the small image reduced from the sample
    /// (4 to 5 times its pixels: enough for Lanczos3, a fifth of the print's to read).
    /// - Throws: `VipsError` from an encoder.
    func encode(_ side: VImage) throws -> RenderedSide {
        let printData = try print.map { try side.encoded($0) } ?? Data()
        let sample = try sampleImage(side)
        let small = try sample.reduced(toWidth: smallSize.width, height: smallSize.height)
        return RenderedSide(
            print: printData, sample: try sample.encoded(Self.sample), small: try small.encoded(Self.small),
            printSize: Size(width: side.width, height: side.height), sampleSize: sampleSize, smallSize: smallSize)
    }

    /// The print file alone (empty for a press, whose PDF is made from the pixels).
    /// - Throws: `VipsError` from the encoder.
    func encodePrint(_ side: VImage) throws -> Data {
        try print.map { try side.encoded($0) } ?? Data()
    }

    /// A sample plan's files from its pixels (`sampleSize` already): the sample, and the small
    /// image reduced from it unless `small` is false (a preview).
    /// - Throws: `VipsError` from the reduction or an encoder.
    func encodeSample(_ sample: VImage, small: Bool) throws -> (sample: Data, small: Data) {
        let sampleData = try sample.encoded(Self.sample)
        guard small else { return (sampleData, Data()) }
        return (sampleData, try sample.reduced(toWidth: smallSize.width, height: smallSize.height).encoded(Self.small))
    }

    /// The sample's pixels: the side resized to `sampleSize`, in memory.
    private func sampleImage(_ side: VImage) throws -> VImage {
        try side.resized(
            scale: Double(sampleSize.width) / Double(side.width),
            verticalScale: Double(sampleSize.height) / Double(side.height)
        ).exactly(width: sampleSize.width, height: sampleSize.height).inMemory()
    }
}
