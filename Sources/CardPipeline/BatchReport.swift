import CardKit
import FileUtilities
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The JSON report of a batch: every card's outcome and a summary.
public struct BatchReport: Sendable, Codable {
    /// Counts over the batch.
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

    /// The program and libvips versions.
    public var producer: String
    /// Whether Ctrl-C stopped the batch early.
    public var interrupted: Bool
    /// One outcome per finished card, in input order.
    public var cards: [CardOutcome]
    /// The counts.
    public var summary: Summary

    /// - Parameters:
    ///   - total: the cards planned, missing inputs included.
    ///   - missing: the inputs that are missing or unreadable (never started).
    public init(
        producer: String, interrupted: Bool, total: Int, missing: Int = 0, cards: [CardOutcome], seconds: Double
    ) {
        self.producer = producer
        self.interrupted = interrupted
        self.cards = cards
        let rendered = cards.filter { $0.error == nil }
        summary = Summary(
            total: total, rendered: rendered.count, failed: cards.count - rendered.count,
            good: rendered.filter { $0.quality == .good }.count, bad: rendered.filter { $0.quality == .bad }.count,
            cached: rendered.filter { $0.cached == true }.count,
            notStarted: total - missing - cards.count, missing: missing,
            defects: cards.filter { $0.defect == true }.count, seconds: (seconds * 100).rounded() / 100)
    }

    /// The summary as one line for people.
    public var summaryLine: String {
        var line =
            "\(summary.rendered) of \(summary.total) cards rendered (\(summary.good) good, \(summary.bad) bad for print)"
        if summary.cached > 0 { line += ", \(summary.cached) from the cache" }
        if summary.failed > 0 { line += ", \(summary.failed) failed" }
        if summary.defects > 0 { line += " (\(summary.defects) by a defect of cardrender's: see above)" }
        if summary.missing > 0 {
            line += ", \(summary.missing) input\(summary.missing == 1 ? "" : "s") missing or unreadable"
        }
        if summary.notStarted > 0 { line += ", \(summary.notStarted) not started (interrupted)" }
        return line + " in \((summary.seconds * 10).rounded() / 10) s."
    }

    /// Writes the report as JSON, atomically.
    public func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try AtomicFile.write(encoder.encode(self), to: path)
    }
}
