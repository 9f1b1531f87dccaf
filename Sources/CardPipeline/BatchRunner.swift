import Dispatch
import Synchronization
import VipsKit

/// Runs one job per item on a bounded number of Dispatch workers.
///
/// Each worker pulls the next item when it finishes one, so `jobs` items at most are in
/// flight and memory stays flat however many items there are. libvips's per-thread
/// state is released after every job (`Vips.endThreadJob`).
public struct BatchRunner: Sendable {
    /// Number of workers (at least 1).
    public let jobs: Int

    public init(jobs: Int) {
        self.jobs = max(1, jobs)
    }

    /// Runs `work` on every item and calls `completed` (one call at a time, in completion
    /// order) with each item's index and result. Returns when every started job is done.
    /// - Parameters:
    ///   - items: the work list.
    ///   - shouldStop: checked before each item is taken; `true` stops taking new items.
    ///   - work: the job; runs on a worker thread.
    ///   - completed: the result handler; serialised by a lock.
    /// - Returns: how many items were completed.
    @discardableResult
    public func run<Item: Sendable, Result>(
        _ items: [Item],
        shouldStop: @escaping @Sendable () -> Bool = { false },
        work: @escaping @Sendable (Item) -> Result,
        completed: @escaping @Sendable (Int, Item, Result) -> Void
    ) -> Int {
        let next = Mutex(0)
        let finished = Mutex(0)
        let group = DispatchGroup()
        // One serial queue per worker. libdispatch gives serial queues "overcommit" threads,
        // so every worker runs at once even when the shared pool is busy (on Linux, Swift
        // concurrency runs on that pool too). A concurrent queue is not overcommit: its
        // blocks waited for a free pool thread and ran one after another.
        for worker in 0..<min(jobs, items.count) {
            DispatchQueue(label: "cardrender.worker.\(worker)").async(group: group) {
                while !shouldStop() {
                    let index = next.withLock { value -> Int in
                        defer { value += 1 }
                        return value
                    }
                    guard index < items.count else { break }
                    let result = work(items[index])
                    Vips.endThreadJob()
                    finished.withLock { count in
                        count += 1
                        completed(index, items[index], result)
                    }
                }
            }
        }
        group.wait()
        return finished.withLock { $0 }
    }
}

extension BatchRunner {
    /// Runs `work` on every job (see `run`) and collects the outcomes in job order.
    public func collect<Job: Sendable, Outcome: Sendable>(
        _ jobs: [Job], shouldStop: @escaping @Sendable () -> Bool,
        work: @escaping @Sendable (Job) -> Outcome,
        completed: @escaping @Sendable (Outcome) -> Void
    ) -> BatchRun<Outcome> {
        let started = ContinuousClock.now
        let outcomes = Mutex([Int: Outcome]())
        let finished = run(
            jobs, shouldStop: shouldStop, work: work,
            completed: { index, _, outcome in
                outcomes.withLock { $0[index] = outcome }
                completed(outcome)
            })
        let collected = outcomes.withLock { found in jobs.indices.compactMap { found[$0] } }
        return BatchRun(
            outcomes: collected, interrupted: finished < jobs.count || shouldStop(),
            seconds: (ContinuousClock.now - started).seconds)
    }
}
