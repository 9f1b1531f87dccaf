import HTTPTypes

extension HTTPField.Name {
    /// The thumbnail's size, `WIDTHxHEIGHT`.
    static let imageSize = HTTPField.Name("X-Image-Size")!
    /// An animation's frames sent and held, when fewer were sent: `1 of 30`.
    static let imageFrames = HTTPField.Name("X-Image-Frames")!
    /// Why a fallback image was sent instead of the photo's thumbnail.
    static let imageError = HTTPField.Name("X-Image-Error")!
    /// The Client Hints a server reads (`--client-hints`).
    static let acceptCH = HTTPField.Name("Accept-CH")!
    static let secCHWidth = HTTPField.Name("Sec-CH-Width")!
    static let secCHDPR = HTTPField.Name("Sec-CH-DPR")!
    /// Who may read the answers' timings (Resource Timing), as CORS says who may read them.
    static let timingAllowOrigin = HTTPField.Name("Timing-Allow-Origin")!
}
