/// Whether a photo has enough pixels for print, from its effective resolution.
public enum PrintQuality: String, Sendable, Codable {
    case good, bad

    /// Photo pixels per printed inch at or above `threshold` (150 dpi by default) is good.
    public init(effectiveDPI: Double, threshold: Double) {
        self = effectiveDPI >= threshold ? .good : .bad
    }
}
