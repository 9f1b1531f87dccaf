extension ThumbOutcome: BatchOutcome {
    /// Counts over a batch of thumbnails.
    public struct Summary: Sendable, Codable, Equatable {
        /// Inputs in the batch (including arguments that could not be read).
        public var total: Int
        /// Thumbnails written.
        public var written: Int
        /// Inputs that failed (arguments that could not be read among them).
        public var failed: Int
        /// Thumbnails that came from the cache.
        public var cached: Int
        /// Inputs never started because the batch was interrupted.
        public var notStarted: Int
        /// Wall time of the batch in seconds.
        public var seconds: Double
    }

    public static let listName = "thumbnails"

    public static func summary(of outcomes: [ThumbOutcome], total: Int, missing: Int, seconds: Double) -> Summary {
        let written = outcomes.filter { $0.error == nil }
        return Summary(
            total: total, written: written.count, failed: outcomes.count - written.count + missing,
            cached: written.filter { $0.cached == true }.count, notStarted: total - missing - outcomes.count,
            seconds: seconds)
    }
}
