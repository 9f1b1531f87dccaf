import FastPath
import ImageCore
import VipsKit

/// Which executor runs a plan: decided in one place, for cards and thumbnails alike.
package enum Executor {
    /// libjpeg-turbo and the SIMD kernels, from this source.
    case fast(FastJPEGSource)
    /// libheif and the SIMD kernels, from this HEIF photo (cards only: `allowsHEIF`).
    case fastHEIF(FastHEIFSource)
    /// libvips's lazy pipeline.
    case general

    /// The pixel path this executor is (its name in reports and its revision in cache keys).
    package var path: RenderPath {
        if case .general = self { return .general }
        return .fast
    }

    /// The executor for `photo` (its `header` read once, by the caller) under `engine`: the
    /// fast one for the JPEGs it decodes exactly (`FastJPEGSource`), and for a card's HEIF
    /// photos (`FastHEIFSource`), at any angle, when the plan asks only what it does.
    /// - Parameters:
    ///   - outputIsJPEG: a card's print is a JPEG, or a press PDF's CMYK JPEG (libjpeg-turbo writes
    ///     it; TIFF is libvips's).
    ///   - colourOnly: grey photos stay with libvips (a grey thumbnail stays grey there).
    ///   - keepsMetadata: the output keeps the input's metadata (libvips copies it).
    ///   - allowsHEIF: HEIF photos may take the fast executor (cards, and thumbnails larger
    ///     than the file's embedded one: `ThumbnailPlan` decides).
    package static func choose(
        photo: ImageData, header: ImageHeader, engine: RenderEngine, outputIsJPEG: Bool = true,
        colourOnly: Bool = false, keepsMetadata: Bool = false, allowsHEIF: Bool = false
    ) -> Executor {
        guard engine == .auto, outputIsJPEG, !keepsMetadata else { return .general }
        if let source = FastJPEGSource(photo, header: header), !colourOnly || source.info.components == 3 {
            return .fast(source)
        }
        if allowsHEIF, let source = FastHEIFSource(photo, header: header) { return .fastHEIF(source) }
        return .general
    }
}
