import FastPath
import ImageCore

extension FastHEIFSource {
    /// Whether `streamedResample` can make this photo's pixels: libheif's transformations
    /// are at most a turn (`turn`), which the resampled picture takes afterwards.
    package var streams: Bool { turn != nil }

    /// `box` (in the upright photo's pixels) resampled to `width` x `height`, read from the
    /// decode's YCbCr planes a row at a time (`HEIFCodec.Planes`): the box is resampled in
    /// the stored picture's frame, then the small result is turned upright and converted to
    /// sRGB. A 12 MP photo holds its 18 MB of planes, not the 36 MB RGB picture (and libheif's
    /// conversion, and libvips's copy, beside it). Only for `streams`.
    /// - Returns: nil when the photo decodes to a layout the row conversion does not take
    ///   (not 8-bit full-range 4:2:0): libvips's way then.
    /// - Throws: `ImageInputError.damaged` naming the file, with libheif's reason.
    package func streamedResample(box: (x: Double, y: Double, width: Double, height: Double), width: Int, height: Int)
        throws -> MemoryImage?
    {
        guard let turn else { preconditionFailure("FastHEIFSource.streamedResample: not a turn alone") }
        let decoded: HEIFCodec.Planes?
        do {
            decoded = try photo.withUnsafeBytes { bytes throws(HEIFCodec.Failure) in try HEIFCodec.Planes(bytes) }
        } catch {
            throw ImageInputError.damaged(file: photo.name, detail: error.message)
        }
        guard let planes = decoded else { return nil }
        let swapped = turn >= 5
        guard (swapped ? (planes.height, planes.width) : (planes.width, planes.height)) == (info.width, info.height)
        else {
            throw ImageInputError.damaged(
                file: photo.name, detail: "the decoded picture is not the size its header gave")
        }
        let stored = Self.storedBox(
            box, turn: turn, storedWidth: Double(planes.width), storedHeight: Double(planes.height))
        let (outWidth, outHeight) = swapped ? (height, width) : (width, height)
        let resampler = PixelKernels.Stream(
            sourceWidth: planes.width, sourceHeight: planes.height, box: stored, width: outWidth, height: outHeight)
        var output = [UInt8](repeating: 0, count: outWidth * outHeight * 3)
        var row = [UInt8](repeating: 0, count: planes.width * 3)
        output.withUnsafeMutableBufferPointer { output in
            row.withUnsafeMutableBufferPointer { row in
                for y in 0..<outHeight {
                    while !resampler.pull(into: output.baseAddress! + y * outWidth * 3) {
                        guard let wanted = resampler.nextInput else {
                            preconditionFailure("PixelKernels.Stream: no row ready and none wanted")
                        }
                        planes.row(wanted, into: row.baseAddress!)
                        resampler.push(row.baseAddress!)
                    }
                }
            }
        }
        var upright = PixelKernels.oriented(MemoryImage(width: outWidth, height: outHeight, pixels: output), turn)
        transformAfterResampling?.apply(to: &upright)
        return upright
    }

    /// `box` of the upright picture as a box of the stored one, which EXIF orientation `turn`
    /// makes upright (corners mapped back; exact for the eight turns and mirrors).
    package static func storedBox(
        _ box: (x: Double, y: Double, width: Double, height: Double), turn: Int, storedWidth: Double,
        storedHeight: Double
    ) -> (x: Double, y: Double, width: Double, height: Double) {
        /// The stored point that `turn` takes to the upright point (u, v).
        func stored(_ u: Double, _ v: Double) -> (Double, Double) {
            switch turn {
            case 2: (storedWidth - u, v)
            case 3: (storedWidth - u, storedHeight - v)
            case 4: (u, storedHeight - v)
            case 5: (v, u)
            case 6: (v, storedHeight - u)
            case 7: (storedWidth - v, storedHeight - u)
            case 8: (storedWidth - v, u)
            default: (u, v)
            }
        }
        let a = stored(box.x, box.y)
        let b = stored(box.x + box.width, box.y + box.height)
        return (min(a.0, b.0), min(a.1, b.1), abs(b.0 - a.0), abs(b.1 - a.1))
    }
}
