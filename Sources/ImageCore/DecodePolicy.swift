/// What an input must satisfy before and while it is decoded.
public struct DecodePolicy: Sendable, Equatable, Hashable, Encodable {
    /// What to do with damaged data (a truncated or corrupt file).
    public enum Damage: String, Sendable, CaseIterable, Codable {
        /// Refuse the input with an error naming the file (the default).
        case fail
        /// Render what decodes and report a warning. libvips 8.14 still stops after 100
        /// decoder warnings, so on the general path badly damaged files fail either way (the
        /// fast path's libjpeg-turbo decoder renders them).
        case warn
    }

    /// Largest width x height the header may declare (default 120 megapixels).
    public var maxPixels: Int
    /// Largest file accepted, in bytes (default 64 MiB).
    public var maxFileBytes: Int
    /// Formats accepted (default: all of `InputFormat`).
    public var formats: Set<InputFormat>
    /// Handling of damaged data.
    public var damage: Damage

    /// The defaults: 120 MP, 64 MiB, every raster format, damaged data refused.
    public static let `default` = DecodePolicy()

    public init(
        maxPixels: Int = 120_000_000,
        maxFileBytes: Int = 64 << 20,
        formats: Set<InputFormat> = Set(InputFormat.allCases),
        damage: Damage = .fail
    ) {
        self.maxPixels = maxPixels
        self.maxFileBytes = maxFileBytes
        self.formats = formats
        self.damage = damage
    }

    private enum CodingKeys: String, CodingKey {
        case maxPixels, maxFileBytes, formats, damage
    }

    /// Every field; the formats sorted, so that equal policies encode to equal bytes (cache keys).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(maxPixels, forKey: .maxPixels)
        try container.encode(maxFileBytes, forKey: .maxFileBytes)
        try container.encode(formats.map(\.rawValue).sorted(), forKey: .formats)
        try container.encode(damage, forKey: .damage)
    }
}
