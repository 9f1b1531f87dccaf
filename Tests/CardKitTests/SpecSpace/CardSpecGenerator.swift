import Foundation
import TestSupport

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
        if chance(0.15) {
            spec["recipients"] = (0..<Int.random(in: 1...2, using: &random)).map { _ in address() }
            if chance(0.5) { spec["sender"] = address() }
        }
        return spec
    }

    /// A valid address in one of the posts' formats: the country as a code or a name, the
    /// destination's own example postcode and a region where it asks for one; names with
    /// accents, hyphens, or in the local script (Japan), up to the 38 characters a line holds.
    mutating func address() -> [String: Any] {
        let places: [[String: Any]] = [
            ["country": "FR", "postcode": "75011", "city": "Paris"],
            ["country": "France", "postcode": "13210", "city": "Saint-Rémy-de-Provence", "sortingCode": "CEDEX"],
            ["country": "UK", "postcode": "NW1 6XE", "city": "London"],
            ["country": "États-Unis", "postcode": "94043", "city": "Mountain View", "region": "CA"],
            ["country": "DE", "postcode": "10115", "city": "Berlin"],
            ["country": "Japan", "postcode": "100-0005", "region": "Tokyo", "address2": "Chiyoda-ku"],
            ["country": "JP", "postcode": "100-0005", "region": "東京都", "address1": "千代田区丸の内1-1", "name": "山田太郎"],
            ["country": "Corée du Sud", "postcode": "03051", "city": "Seoul", "region": "Seoul"],
            ["country": "BR", "postcode": "40301-110", "city": "Salvador", "region": "BA"],
            ["country": "IE", "postcode": "D02 X285", "city": "Dublin", "region": "Co. Dublin"],
            ["country": "CH", "postcode": "8001", "city": "Zürich"],
            ["country": "CA", "postcode": "H3Z 2Y7", "city": "Montréal", "region": "QC"],
        ]
        var address = places.randomElement(using: &random)!
        let names = ["Claire Martin", "Mme Martine Durand-Lefebvre", "Jean-Pierre Dupont-Lefèvre", "Zoë O'Neill"]
        if address["name"] == nil { address["name"] = names.randomElement(using: &random)! }
        if address["address1"] == nil {
            address["address1"] = ["12 rue des Lilas", "221B Baker Street", "Résidence les Jardins de Saint-Germain"]
                .randomElement(using: &random)!
        }
        if chance(0.3) { address["organisation"] = "Atelier Lumière" }
        return address
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }
}
