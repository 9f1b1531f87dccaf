import Foundation

/// Waiting for a condition by polling, bounded by time.
///
/// The last check always starts after the deadline. A loaded machine can keep a polling task
/// from running for minutes (the suites' blocking tests hold Swift's cooperative threads), so
/// a poller whose sleep overran the deadline looks once more before it gives up, instead of
/// failing on what it saw before it slept.
public enum Poll {
    /// Checks `condition` every `interval` until it holds.
    /// - Returns: true when it held; false when a check started after `seconds` still failed.
    public static func until(
        seconds: Double, every interval: Duration = .milliseconds(20), _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while true {
            let expired = ContinuousClock.now >= deadline
            if try await condition() { return true }
            if expired { return false }
            do {
                try await Task.sleep(for: interval)
            } catch {
                return try await condition()  // cancelled: one last look, no spinning
            }
        }
    }

    /// `until(seconds:every:_:)` for a caller on a thread of its own (it sleeps the thread).
    public static func blockingUntil(
        seconds: Double, every interval: Duration = .milliseconds(20), _ condition: () throws -> Bool
    ) rethrows -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        let pause = useconds_t(
            interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
        while true {
            let expired = ContinuousClock.now >= deadline
            if try condition() { return true }
            if expired { return false }
            usleep(pause)
        }
    }
}
