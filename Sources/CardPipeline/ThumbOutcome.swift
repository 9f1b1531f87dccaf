/// What happened to one input of a thumbnail batch.
public struct ThumbOutcome: Sendable, Codable, Equatable {
    /// The input file.
    public var input: String
    /// Its path relative to its input root: what names it in a run's manifests and
    /// decides its shard.
    public var item: String?
    /// The thumbnail written, when it was.
    public var output: String?
    /// Its size in pixels.
    public var width: Int?
    public var height: Int?
    /// Whether it came from the cache (nil: no cache in use).
    public var cached: Bool?
    /// Its cache key (nil: no cache in use).
    public var key: String?
    /// The SHA-256 of the file written (only when the batch records digests, as a run does).
    public var digest: String?
    /// Render and write time in seconds.
    public var seconds: Double = 0
    /// Why it failed: one sentence naming the file and the cause.
    public var error: String?
    /// Set when damaged data was rendered leniently.
    public var warning: String?
    /// Set when the machine failed, not the input (a full disk): the input should be
    /// done again by a later run rather than given up on.
    public var temporary: Bool?

    public init(input: String) {
        self.input = input
    }
}
