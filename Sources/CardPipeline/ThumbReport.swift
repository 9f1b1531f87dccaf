import CardKit
import FileUtilities
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The JSON report of a thumbnail batch (`thumb --report`): every input's outcome and a summary.
public struct ThumbReport: Sendable, Codable {
    /// Counts over the batch.
    public struct Summary: Sendable, Codable, Equatable {
        /// Inputs in the batch (including arguments that could not be read).
        public var total: Int
        /// Thumbnails written.
        public var written: Int
        /// Inputs that failed.
        public var failed: Int
        /// Thumbnails that came from the cache.
        public var cached: Int
        /// Inputs never started because the batch was interrupted.
        public var notStarted: Int
        /// Wall time of the batch in seconds.
        public var seconds: Double
    }

    /// The program and libvips versions.
    public var producer: String
    /// Whether Ctrl-C stopped the batch early.
    public var interrupted: Bool
    /// One outcome per finished input, in input order.
    public var thumbnails: [ThumbOutcome]
    /// The counts.
    public var summary: Summary

    /// The report of `run`, a batch of `plan`.
    public init(plan: BatchPlan<OutputPlan.Job>, run: BatchRun<ThumbOutcome>) {
        producer = "cardrender \(CardRenderVersion.string) (libvips \(Vips.compiledVersion))"
        interrupted = run.interrupted
        thumbnails = run.outcomes.sorted { $0.input < $1.input }
        let written = run.outcomes.filter { $0.error == nil }
        summary = Summary(
            total: plan.jobs.count + plan.problems.count, written: written.count,
            failed: run.outcomes.count - written.count + plan.problems.count,
            cached: written.filter { $0.cached == true }.count, notStarted: plan.jobs.count - run.outcomes.count,
            seconds: (run.seconds * 100).rounded() / 100)
    }

    /// The report of a run's shards joined (`runs merge`): `thumbnails` are the outcomes
    /// of every shard, `total` the items of the run, `seconds` the longest shard's time.
    public init(producer: String, thumbnails: [ThumbOutcome], total: Int, seconds: Double) {
        self.producer = producer
        interrupted = false
        self.thumbnails = thumbnails.sorted { $0.input < $1.input }
        let written = thumbnails.filter { $0.error == nil }
        summary = Summary(
            total: total, written: written.count, failed: thumbnails.count - written.count,
            cached: written.filter { $0.cached == true }.count, notStarted: total - thumbnails.count,
            seconds: (seconds * 100).rounded() / 100)
    }

    /// Writes the report as JSON, atomically.
    public func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try AtomicFile.write(encoder.encode(self), to: path)
    }
}
