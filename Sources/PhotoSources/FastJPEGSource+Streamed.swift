import FastPath
import ImageCore

extension FastJPEGSource {
    /// Whether `streamedResample` can make this photo's pixels: stored upright (orientation
    /// 1), so its decoded rows are the picture's rows.
    package var streams: Bool { info.orientation == 1 }

    /// `box` of the photo decoded at 1/`shrink` resampled to `width` x `height`, the rows
    /// going from libjpeg-turbo through the resampler's ring (`PixelKernels.Stream`): the
    /// bytes of `PixelKernels.resample` on `decodeUpright`'s picture, without holding that
    /// picture (36 MB for a 12 MP photo at full scale; the ring holds a few rows). Rows the
    /// box does not reach are skipped (libjpeg skips their IDCT). Only for `streams`.
    /// - Throws: `ImageInputError.damaged` naming the file, with libjpeg's reason (any damage
    ///   under `damage == .fail`; otherwise what decodes is returned with a warning).
    package func streamedResample(
        shrink: Int, box: (x: Double, y: Double, width: Double, height: Double), width: Int, height: Int,
        policy: DecodePolicy
    ) throws -> (image: MemoryImage, warning: String?) {
        precondition(streams, "FastJPEGSource.streamedResample: the photo is not stored upright")
        var output = [UInt8](repeating: 0, count: width * height * 3)
        let warning: String?
        do {
            warning = try photo.withUnsafeBytes { bytes -> String? in
                let decoder = try JPEGCodec.RowDecoder(bytes, scale: shrink, strict: policy.damage == .fail)
                let resampler = PixelKernels.Stream(
                    sourceWidth: decoder.width, sourceHeight: decoder.height, box: box, width: width, height: height)
                var row = [UInt8](repeating: 0, count: decoder.width * 3)
                var decoded = 0
                try output.withUnsafeMutableBufferPointer { output in
                    for y in 0..<height {
                        while !resampler.pull(into: output.baseAddress! + y * width * 3) {
                            guard let wanted = resampler.nextInput else {
                                preconditionFailure("PixelKernels.Stream: no row ready and none wanted")
                            }
                            if wanted > decoded {
                                try decoder.skip(wanted - decoded)
                                decoded = wanted
                            }
                            let read = try row.withUnsafeMutableBufferPointer { row throws(JPEGCodec.Failure) in
                                try decoder.read(into: row.baseAddress!, stride: decoder.width * 3, count: 1)
                            }
                            guard read == 1 else {
                                throw ImageInputError.damaged(file: photo.name, detail: "no rows decoded")
                            }
                            decoded += 1
                            if let transform {
                                row.withUnsafeMutableBufferPointer {
                                    transform.apply($0.baseAddress!, count: decoder.width)
                                }
                            }
                            row.withUnsafeBufferPointer { resampler.push($0.baseAddress!) }
                        }
                    }
                }
                return try decoder.finish()
            }
        } catch let failure as JPEGCodec.Failure {
            throw ImageInputError.damaged(file: photo.name, detail: failure.message)
        }
        return (
            MemoryImage(width: width, height: height, pixels: output),
            warning.map { "\(photo.name): damaged image data, rendered what decodes (\($0))." }
        )
    }
}
