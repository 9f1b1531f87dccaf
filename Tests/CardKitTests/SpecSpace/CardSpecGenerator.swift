import Foundation

/// Valid card specs drawn from the whole range of every field, from a seed: the same seed
/// gives the same specs on every machine, so a failure printed with its seed and index can
/// be replayed (`scripts/fuzz-specs.sh N SEED`). Hand-written on a SplitMix64 stream
/// (`SplitMix`) rather than through a property-testing library: the suite and the script must share one seeded
/// sequence, and a failing render is replayed from its printed JSON, not shrunk by re-running
/// renders that take a tenth of a second each.
struct CardSpecGenerator {
    /// The frame ids to draw from (nil among them: no frame).
    let frames: [String]
    /// The largest dpi drawn (the spec allows 72...1200; the suite keeps cards small).
    let maxDPI: Int
    var random: SplitMix

    init(seed: UInt64, frames: [String], maxDPI: Int = 1200) {
        random = SplitMix(seed: seed)
        self.frames = frames
        self.maxDPI = maxDPI
    }

    /// The next spec as its JSON object, and whether its placement is a crop (which the
    /// caller fits to the photo and window: `crop(for:)`).
    mutating func next() -> [String: Any] {
        var spec: [String: Any] = ["version": 1]
        if chance(0.8) {
            var transform: [String: Any] = [:]
            // Scale 0.05...20, log-uniform: as many gestures zoom out as in.
            if chance(0.9) { transform["scale"] = exp(Double.random(in: log(0.05)...log(20), using: &random)) }
            if chance(0.5) {
                transform["rotation"] = Double(Int.random(in: -40...40, using: &random) * 90)
            } else if chance(0.8) {
                transform["rotation"] = Double.random(in: -3600...3600, using: &random)
            }
            if chance(0.85) {
                // Half the offsets near the window (the photo partly out), half anywhere.
                let range = chance(0.5) ? -1.5...1.5 : -10.0...10.0
                transform["offset"] = [
                    "x": Double.random(in: range, using: &random), "y": Double.random(in: range, using: &random),
                ]
            }
            // One gesture in sixteen is the app's first placement, resolved by the renderer.
            spec["transform"] = chance(1 / 16) ? "auto" as Any : transform
        } else {
            // Fractions of the photo; the caller fits them to the window's shape.
            spec["crop"] = [
                "fraction": Double.random(in: 0.02...1, using: &random),
                "x": Double.random(in: 0...1, using: &random), "y": Double.random(in: 0...1, using: &random),
            ]
        }
        if chance(0.7), let frame = frames.randomElement(using: &random) { spec["frame"] = frame }
        if chance(0.6) {
            let name = ["normal", "bw", "sepia", "vintage"].randomElement(using: &random)!
            spec["effect"] =
                chance(0.5)
                ? name : ["name": name, "strength": Double.random(in: 0...1, using: &random)] as [String: Any]
        }
        var card: [String: Any] = [:]
        if chance(0.7) { card["size"] = ["a6", "a5", "4x6in", "5x7in", "6x9in"].randomElement(using: &random)! }
        if chance(0.7) { card["dpi"] = Int.random(in: 72...maxDPI, using: &random) }
        if chance(0.5) { card["bleed"] = Double.random(in: 0...10, using: &random) }
        if !card.isEmpty { spec["card"] = card }
        if chance(0.4) {
            spec["background"] = String(format: "#%06x", Int.random(in: 0...0xFF_FFFF, using: &random))
        }
        if chance(0.1) {
            spec["message"] = [
                "text": ["Bonjour 👋", "Grüße aus Köln", "こんにちは", "Line one\nLine two ✈️"].randomElement(
                    using: &random)!,
                "size": Int.random(in: 10...30, using: &random),
                "align": ["left", "centre", "right"].randomElement(using: &random)!,
            ]
        }
        return spec
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }
}
