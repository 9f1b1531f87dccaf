import VipsKit

/// Which executor runs a plan: decided in one place, for cards and thumbnails alike.
enum Executor {
    /// libjpeg-turbo and the SIMD kernels, from this source.
    case fast(FastJPEGSource)
    /// libvips's lazy pipeline.
    case general

    /// The executor for `photo` (its `header` read once, by the caller) under `engine`: the
    /// fast one for the JPEGs it decodes exactly (`FastJPEGSource`), when the plan asks only
    /// what it does.
    /// - Parameters:
    ///   - rotation: the placement's rotation in degrees (the fast executor turns by quarters).
    ///   - outputIsJPEG: a card's print is a JPEG (libjpeg-turbo writes it; TIFF is libvips's).
    ///   - colourOnly: grey photos stay with libvips (a grey thumbnail stays grey there).
    ///   - keepsMetadata: the output keeps the input's metadata (libvips copies it).
    static func choose(
        photo: ImageData, header: ImageHeader, engine: RenderEngine, rotation: Double = 0, outputIsJPEG: Bool = true,
        colourOnly: Bool = false, keepsMetadata: Bool = false
    ) -> Executor {
        guard engine == .auto, outputIsJPEG, !keepsMetadata, rotation.truncatingRemainder(dividingBy: 90) == 0,
            let source = FastJPEGSource(photo, header: header), !colourOnly || source.info.components == 3
        else { return .general }
        return .fast(source)
    }
}
