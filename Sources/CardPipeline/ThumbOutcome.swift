/// What happened to one input of a thumbnail batch.
public struct ThumbOutcome: Sendable, Codable, Equatable {
    /// The input file.
    public var input: String
    /// The thumbnail written, when it was.
    public var output: String?
    /// Its size in pixels.
    public var width: Int?
    public var height: Int?
    /// Whether it came from the cache (nil: no cache in use).
    public var cached: Bool?
    /// Render and write time in seconds.
    public var seconds: Double = 0
    /// Why it failed: one sentence naming the file and the cause.
    public var error: String?
    /// Set when damaged data was rendered leniently.
    public var warning: String?

    public init(input: String) {
        self.input = input
    }
}
