import Dispatch
import Synchronization

/// What a batch run produced.
public struct BatchRun<Outcome: Sendable>: Sendable {
    /// The outcome of every job that ran, in job order.
    public var outcomes: [Outcome]
    /// Whether it stopped before starting every job.
    public var interrupted: Bool
    /// Wall time in seconds.
    public var seconds: Double
}
