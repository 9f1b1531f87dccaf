import CardKit

extension CardOutcome: BatchOutcome {
    /// Counts over a batch of cards.
    public struct Summary: Sendable, Codable, Equatable {
        /// Cards in the batch.
        public var total: Int
        /// Cards written.
        public var rendered: Int
        /// Cards that failed.
        public var failed: Int
        /// Rendered cards whose photo is good enough for print.
        public var good: Int
        /// Rendered cards whose photo is not.
        public var bad: Int
        /// Rendered cards whose files came from the disk cache.
        public var cached: Int
        /// Cards never started because the batch was interrupted.
        public var notStarted: Int
        /// Inputs named on the command line that are missing or cannot be read (each named
        /// on standard error): counted in `total`, never started.
        public var missing: Int
        /// Cards that failed through a defect of cardrender's (`CardRenderFailure`), not
        /// their input's: the command exits 70.
        public var defects: Int
        /// Wall time of the batch in seconds.
        public var seconds: Double
    }

    public static let listName = "cards"

    public static func summary(of outcomes: [CardOutcome], total: Int, missing: Int, seconds: Double) -> Summary {
        let rendered = outcomes.filter { $0.error == nil }
        return Summary(
            total: total, rendered: rendered.count, failed: outcomes.count - rendered.count,
            good: rendered.filter { $0.quality == .good }.count, bad: rendered.filter { $0.quality == .bad }.count,
            cached: rendered.filter { $0.cached == true }.count, notStarted: total - missing - outcomes.count,
            missing: missing, defects: outcomes.filter { $0.defect == true }.count, seconds: seconds)
    }
}
