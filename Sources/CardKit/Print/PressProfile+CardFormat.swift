import PressKit

extension PressProfile {
    /// The card format a card printed with this profile has: the profile's size, dpi and bleed.
    public var cardFormat: CardFormat { CardFormat(size: size, dpi: dpi, bleed: bleed) }
}
