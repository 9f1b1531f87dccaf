/// The pixel paths a renderer or thumbnailer may use.
public enum RenderEngine: String, Sendable, Hashable, Codable, CaseIterable {
    /// The fast path (libjpeg-turbo and the SIMD kernels) for the JPEGs that allow it,
    /// libvips for the rest.
    case auto
    /// libvips for everything (for comparison).
    case general
}
