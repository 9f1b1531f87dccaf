/// The message side of a card: what the customer wrote and how.
public struct CardMessage: Sendable, Equatable, Hashable, Codable {
    /// The four fonts of the old app, by free Debian look-alikes loaded from their files.
    public enum Font: String, Sendable, CaseIterable, Codable {
        /// Arial -> Liberation Sans (fonts-liberation2).
        case sans
        /// Segoe Print -> Dancing Script (fonts-dancingscript).
        case script
        /// Traveling Typewriter -> GNU Typewriter (fonts-gnutypewriter).
        case typewriter
        /// Bell MT -> EB Garamond (fonts-ebgaramond).
        case serif

        /// The Pango family name.
        public var family: String {
            switch self {
            case .sans: "Liberation Sans"
            case .script: "Dancing Script"
            case .typewriter: "GNUTypewriter"
            case .serif: "EB Garamond 12"
            }
        }

        /// The families Pango tries, in order, for a character the font lacks (Noto, from
        /// Debian's `fonts-noto-core`, `fonts-noto-cjk` and `fonts-noto-color-emoji`,
        /// installed by `scripts/setup.sh`): Latin, Greek and Cyrillic in the font's style,
        /// Hebrew, Arabic, the CJK ideographs and kana (Japanese forms), then symbols. Past
        /// the chain fontconfig offers every other installed font, emoji from Noto Color
        /// Emoji (its own rule for emoji). Noto Color Emoji is not named in the chain: named,
        /// it drew digits and spaces with its own wide glyphs (measured: "150-0002 Tokyo"
        /// 644 pixels instead of 357 at 12 pt, 300 dpi). A character no font has is refused,
        /// never printed as a box.
        public var fallbackFamilies: [String] {
            switch self {
            case .serif:
                [
                    "Noto Serif", "Noto Serif Hebrew", "Noto Naskh Arabic", "Noto Serif CJK JP", "Noto Sans Symbols",
                    "Noto Sans Symbols2", "Noto Sans Math",
                ]
            case .sans, .script, .typewriter:
                [
                    "Noto Sans", "Noto Sans Hebrew", "Noto Sans Arabic", "Noto Sans CJK JP", "Noto Sans Symbols",
                    "Noto Sans Symbols2", "Noto Sans Math",
                ]
            }
        }

        /// The Pango font description at `size` points: the font, then its fallbacks.
        public func description(size: Int) -> String {
            ([family] + fallbackFamilies).joined(separator: ", ") + " \(size)"
        }

        /// The font file, installed by `scripts/setup.sh`.
        public var file: String {
            switch self {
            case .sans: "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf"
            case .script: "/usr/share/fonts/opentype/dancingscript/DancingScript-Regular.otf"
            case .typewriter: "/usr/share/fonts/truetype/gnutypewriter/GNUTypewriter.ttf"
            case .serif: "/usr/share/fonts/opentype/ebgaramond/EBGaramond12-Regular.otf"
            }
        }
    }

    /// The five ink colours, with their exact sRGB values.
    public enum Colour: String, Sendable, CaseIterable, Codable {
        /// (0, 0, 0)
        case black
        /// (230, 120, 0)
        case orange
        /// (0, 70, 160)
        case blue
        /// (0, 128, 60)
        case green
        /// (200, 0, 30)
        case red

        /// sRGB, 0...255.
        public var rgb: [Double] {
            switch self {
            case .black: [0, 0, 0]
            case .orange: [230, 120, 0]
            case .blue: [0, 70, 160]
            case .green: [0, 128, 60]
            case .red: [200, 0, 30]
            }
        }
    }

    /// Line alignment in the message area.
    public enum Alignment: String, Sendable, CaseIterable, Codable {
        case left, centre, right
    }

    /// The text (UTF-8, printed as typed: never markup).
    public var text: String
    public var font: Font
    /// Points at the card's dpi, 10...30.
    public var size: Int
    public var colour: Colour
    public var align: Alignment

    /// The most lines a message may take, as rendered.
    public static let maxLines = 12
    /// The allowed sizes.
    public static let sizes = 10...30

    public init(text: String, font: Font = .sans, size: Int = 14, colour: Colour = .black, align: Alignment = .left) {
        self.text = text
        self.font = font
        self.size = size
        self.colour = colour
        self.align = align
    }
}
