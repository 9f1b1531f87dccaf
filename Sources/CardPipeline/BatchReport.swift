import CardKit
import FileUtilities
import VipsKit

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The JSON report of a batch (`render`, `thumb --report`, `runs merge`): the producer, whether
/// Ctrl-C stopped it, every finished input's outcome in input order, and the counts.
public struct BatchReport<Outcome: BatchOutcome>: Sendable, Codable {
    /// The program and libvips versions.
    public var producer: String
    /// Whether Ctrl-C stopped the batch early.
    public var interrupted: Bool
    /// One outcome per finished input, in input order (written as `Outcome.listName`).
    public var outcomes: [Outcome]
    /// The counts.
    public var summary: Outcome.Summary

    /// This build of cardrender and the libvips it was compiled against.
    public static var producer: String { "cardrender \(CardRenderVersion.string) (libvips \(Vips.compiledVersion))" }

    /// - Parameters:
    ///   - total: the inputs planned, missing ones included.
    ///   - missing: the inputs that are missing or unreadable (never started).
    ///   - outcomes: the finished inputs' outcomes, in any order.
    public init(
        producer: String = Self.producer, interrupted: Bool, total: Int, missing: Int = 0, outcomes: [Outcome],
        seconds: Double
    ) {
        self.producer = producer
        self.interrupted = interrupted
        self.outcomes = outcomes.sorted { $0.input < $1.input }
        summary = Outcome.summary(
            of: self.outcomes, total: total, missing: missing, seconds: (seconds * 100).rounded() / 100)
    }

    /// Writes the report as JSON, atomically.
    public func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try AtomicFile.write(encoder.encode(self), to: path)
    }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        producer = try container.decode(String.self, forKey: Key(stringValue: "producer"))
        interrupted = try container.decode(Bool.self, forKey: Key(stringValue: "interrupted"))
        outcomes = try container.decode([Outcome].self, forKey: Key(stringValue: Outcome.listName))
        summary = try container.decode(Outcome.Summary.self, forKey: Key(stringValue: "summary"))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(producer, forKey: Key(stringValue: "producer"))
        try container.encode(interrupted, forKey: Key(stringValue: "interrupted"))
        try container.encode(outcomes, forKey: Key(stringValue: Outcome.listName))
        try container.encode(summary, forKey: Key(stringValue: "summary"))
    }
}

extension BatchReport where Outcome == CardOutcome {
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
}
