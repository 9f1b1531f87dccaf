/// How the post carries (and charges) a card of a given size.
public enum MailClass: String, Sendable, Codable, CaseIterable {
    /// A UPU postcard: 90-120 x 140-235 mm, the long side at least 1.4 times the short one.
    case postcard
    /// Anything else travels abroad as a letter (and at a letter's price).
    case letter

    /// The class of a card `long` x `short` millimetres (the UPU's Letter Post Regulations on
    /// postcards: 90 x 140 mm to 120 x 235 mm, the length at least the width times 1.4).
    public init(long: Double, short: Double) {
        let fits = (90...120).contains(short) && (140...235).contains(long) && long >= 1.4 * short - 1e-9
        self = fits ? .postcard : .letter
    }
}
