import Foundation
import ImageCore
import Synchronization
import Testing

/// `BoundedMemory`, every in-process memory's one type: its bound, its order of forgetting,
/// what it refuses to keep, and one making per key however many ask at once.
struct BoundedMemoryTests {
    @Test func pastTheBoundTheLeastRecentlyUsedGoUntilAQuarterIsFree() {
        let memory = BoundedMemory<String, Int>(capacity: 100) { _, value in value }
        memory.insert(30, for: "a")
        memory.insert(30, for: "b")
        memory.insert(30, for: "c")
        #expect(memory.value(for: "a") == 30)  // a is now the most recently used
        memory.insert(30, for: "d")  // 120 > 100: b, then c, go (down to 75 at most)
        #expect(memory.usage == (2, 60) as (count: Int, cost: Int))
        #expect(memory.contains("a") && memory.contains("d"))
        #expect(!memory.contains("b") && !memory.contains("c"))
        memory.insert(10, for: "a")  // replaced: its cost with it
        #expect(memory.usage.cost == 40)
        #expect(memory.hits == 1)
    }

    @Test func aValueOverItsShareIsNotKeptAndRoomIsMadeAhead() {
        let memory = BoundedMemory<Int, Int>(capacity: 100, largestShare: 4) { _, value in value }
        memory.insert(26, for: 1)
        #expect(!memory.contains(1))
        #expect(!memory.wouldKeep(cost: 26) && memory.wouldKeep(cost: 25))
        memory.insert(25, for: 2)
        memory.insert(25, for: 3)
        memory.insert(25, for: 4)
        memory.makeRoom(for: 25)  // 75 + 25 fits: nothing goes
        #expect(memory.usage.count == 3)
        memory.insert(25, for: 5)
        memory.makeRoom(for: 20)  // 100 + 20 > 100: the oldest go until 80 is left at most
        #expect(memory.usage == (3, 75) as (count: Int, cost: Int))
        #expect(!memory.contains(2))
    }

    final class Made: Sendable {}

    @Test func oneMakingPerKeyWhateverTheCallersAndAFailureIsNotKept() throws {
        let memory = BoundedMemory<String, Made>(capacity: 10)
        let makings = Atomic(0)
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let results = Mutex<[Made]>([])
        let group = DispatchGroup()
        // The first caller makes, and holds the making until the others have been started.
        Thread {
            group.enter()
            let made = memory.value(for: "k") {
                makings.add(1, ordering: .relaxed)
                started.signal()
                release.wait()
                return Made()
            }
            results.withLock { $0.append(made) }
            group.leave()
        }.start()
        started.wait()
        for _ in 0..<7 {
            group.enter()
            Thread {
                let made = memory.value(for: "k") {
                    makings.add(1, ordering: .relaxed)
                    return Made()
                }
                results.withLock { $0.append(made) }
                group.leave()
            }.start()
        }
        release.signal()
        group.wait()
        #expect(makings.load(ordering: .relaxed) == 1)
        let all = results.withLock { $0 }
        #expect(all.count == 8)
        #expect(all.allSatisfy { $0 === all[0] })

        struct Refused: Error {}
        #expect(throws: Refused.self) { try memory.value(for: "bad") { () throws(Refused) -> Made in throw Refused() } }
        #expect(!memory.contains("bad"))
        let made = memory.value(for: "bad") { Made() }
        #expect(memory.value(for: "bad") === made)
    }
}
