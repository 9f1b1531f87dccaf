import ImageCore

/// `format=auto`: the best format the client says it accepts.
///
/// AVIF when `Accept` lists `image/avif` with a quality above 0, else WebP likewise, else
/// JPEG (which every client shows). Wildcards (`image/*`, `*/*`) do not count as AVIF or
/// WebP support: browsers that send them also list the modern formats they really decode.
///
/// With `animated`, WebP comes before AVIF: an animation stays one only as WebP (libvips
/// 8.14 writes AVIF as a still).
enum FormatNegotiation {
    static func choose(accept: String?, animated: Bool = false) -> OutputFormat {
        guard let accept else { return .jpeg }
        var accepted: Set<String> = []
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";")
            guard let type = parts.first?.trimmingSpaces.lowercased() else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingSpaces.lowercased() == "q" {
                    quality = Double(pair[1].trimmingSpaces) ?? 0
                }
            }
            if quality > 0 { accepted.insert(type) }
        }
        if animated && accepted.contains("image/webp") { return .webp }
        if accepted.contains("image/avif") { return .avif }
        if accepted.contains("image/webp") { return .webp }
        return .jpeg
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
