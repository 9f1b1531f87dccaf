import HTTPTypes
import ImageCore
import ServerShell
import Thumbnails

#if canImport(Glibc)
    import Glibc
#endif

extension ThumbService {
    /// Checks the method, the signature and the parameters, and chooses the format.
    func asked(method: HTTPRequest.Method, path: String, query: String?, headers: HTTPFields) throws -> Asked {
        guard method == .get || method == .head else { throw ThumbRequestError.methodNotAllowed }
        var query = Substring(query ?? "")
        if let signer { query = try signer.verify(path: path[...], query: query) }
        let parameters = try ThumbParameters.parse(query: query, rules: rules)
        if let expires = parameters.expires, expires < Int(time(nil)) {
            throw ThumbRequestError.forbidden(reason: "the URL expired at \(HTTPDate.format(expires))")
        }
        var vary: [String] = parameters.format == .auto ? ["Accept"] : []
        var box = parameters.box
        if configuration.clientHints { box = try hinted(box, parameters: parameters, headers: headers, vary: &vary) }
        let options: EncodeOptions
        if parameters.placeholder != nil {
            vary.removeAll { $0 == "Accept" }
            options = EncodeOptions(format: .jpeg)
        } else {
            let format =
                switch parameters.format {
                case .fixed(let format): format
                case .auto:
                    // A GIF or WebP may be animated: WebP keeps it so, AVIF would not. (The
                    // name decides, as the answer's format is chosen before the photo is
                    // read; an animation under another name is sent as its first frame.)
                    FormatNegotiation.choose(accept: headers[.accept], animated: Self.mayBeAnimated(path))
                }
            options = EncodeOptions(
                format: format, quality: parameters.quality(for: format, defaults: configuration.qualities))
        }
        let request = ThumbnailRequest(
            box: box.canonical, placeholder: parameters.placeholder, maxFrames: configuration.maxFrames)
        return Asked(request: request, options: options, vary: vary, expires: parameters.expires)
    }

    /// Whether the photo's name says GIF or WebP, the formats that hold animations.
    static func mayBeAnimated(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".gif") || lower.hasSuffix(".webp")
    }

    /// The rules queries are read under (`--preset`, `--presets-only`, `--client-hints`).
    var rules: ThumbParameters.Rules {
        ThumbParameters.Rules(
            maxWidth: configuration.maxWidth, presets: configuration.presets, presetsOnly: configuration.presetsOnly,
            sizeOptional: configuration.clientHints)
    }

    /// `--client-hints`: a box without a width takes `Sec-CH-Width` (device pixels), and a
    /// query without `dpr` takes `Sec-CH-DPR`; a width either gives is snapped up to the next
    /// of `--widths` (the largest past the last), so unsigned headers add a bounded number of
    /// variants. Each header that could decide the answer is added to `vary`.
    func hinted(
        _ box: ThumbnailBox, parameters: ThumbParameters, headers: HTTPFields, vary: inout [String]
    ) throws(ThumbRequestError) -> ThumbnailBox {
        var box = box
        let widths = configuration.widths
        func snapped(_ width: Int) -> Int { widths.first { $0 >= width } ?? widths.last ?? width }
        if box.width == nil && box.height == nil {
            vary.append("Sec-CH-Width")
            guard let text = headers[.secCHWidth], let width = Int(Substring(text).trimmingSpaces), width >= 1 else {
                throw .badParameter(
                    name: "width", expected: "a width, or a Sec-CH-Width header (Client Hints are on)",
                    received: headers[.secCHWidth])
            }
            box.width = snapped(width)
            box.dpr = 1
        } else if !parameters.namesDensity, let width = box.width {
            vary.append("Sec-CH-DPR")
            if let text = headers[.secCHDPR], let dpr = Double(Substring(text).trimmingSpaces), dpr.isFinite, dpr > 1 {
                // The snapped width as a density, no larger than the sides allow.
                let pixels = snapped(Int((Double(width) * min(4, dpr)).rounded()))
                let longest = Double(max(width, box.height ?? 0))
                box.dpr = max(1, min(Double(pixels) / Double(width), Double(configuration.maxWidth) / longest))
            }
        }
        return box
    }
}
