/// Which way up the card is printed.
public enum Orientation: String, Sendable, Codable, CaseIterable {
    case landscape, portrait
}
