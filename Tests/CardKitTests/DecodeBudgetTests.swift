import CardKit
import Foundation
import PhotoSources
import Synchronization
import Testing

/// `DecodeBudget`: a reservation that does not fit beside those in flight waits for them;
/// small ones run beside each other; one larger than the bound runs alone.
@Suite struct DecodeBudgetTests {
    /// A one-shot gate between threads.
    final class Gate: Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        func open() { semaphore.signal() }
        func pass() { semaphore.wait() }
    }

    /// A flag set by one thread, read by another.
    final class Flag: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    @Test func aReservationThatDoesNotFitWaitsForTheOneInFlight() throws {
        let budget = DecodeBudget(capacity: 128)
        let (inside, release, done) = (Gate(), Gate(), Gate())
        let secondEntered = Flag()
        Thread.detachNewThread {
            budget.reserving(100) {
                inside.open()
                release.pass()
            }
        }
        inside.pass()
        #expect(budget.reserved == 100)
        // A small one fits beside it and runs at once on this thread.
        let small = budget.reserving(20) { budget.reserved }
        #expect(small == 120)
        Thread.detachNewThread {
            budget.reserving(100) { secondEntered.set() }
            done.open()
        }
        // The second waits: it is counted as waiting before it could enter.
        var spins = 0
        while budget.waiting == 0 && spins < 10_000_000 {
            sched_yield()
            spins += 1
        }
        #expect(budget.waiting == 1)
        #expect(!secondEntered.isSet, "it did not wait")
        release.open()
        done.pass()
        #expect(secondEntered.isSet)
        #expect(budget.reserved == 0 && budget.waiting == 0)
    }

    @Test func aReservationLargerThanTheBoundRunsAlone() {
        let budget = DecodeBudget(capacity: 10)
        let held = budget.reserving(1_000) { budget.reserved }
        #expect(held == 1_000 && budget.reserved == 0)
    }
}
