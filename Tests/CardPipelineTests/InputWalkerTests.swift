import CardPipeline
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite(.libvips) struct InputWalkerTests {
    @Test func walksDirectoriesSortedSkippingHiddenAndNonImages() throws {
        let root = try Fixtures.scratchDirectory()
        let manager = FileManager.default
        try manager.createDirectory(atPath: root + "/sub dir/été", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: root + "/.hidden", withIntermediateDirectories: true)
        for file in ["b.JPG", "a.png", "sub dir/été/c.heic", ".hidden/d.jpg", ".e.jpg", "notes.txt"] {
            _ = manager.createFile(atPath: root + "/" + file, contents: Data("x".utf8))
        }
        let single = try Fixtures.scratchDirectory() + "/named.dat"
        _ = manager.createFile(atPath: single, contents: Data("x".utf8))
        let walk = InputWalker.walk([root, single, root + "/missing.jpg"])
        #expect(walk.items.map(\.relativePath) == ["a.png", "b.JPG", "sub dir/été/c.heic", "named.dat"])
        #expect(walk.items[2].path == root + "/sub dir/été/c.heic")
        #expect(walk.skipped == [root + "/notes.txt"])
        #expect(walk.problems == ["\(root)/missing.jpg: no such file or directory."])
    }
}

@Suite(.libvips) struct BatchRunnerTests {
    @Test func runsEveryItemOnceOnBoundedWorkers() {
        let items = Array(0..<200)
        let results = ResultBox()
        // Items 0 and 1 wait for each other (bounded), so two workers are seen at once
        // however the machine schedules them.
        let first = DispatchSemaphore(value: 0)
        let second = DispatchSemaphore(value: 0)
        let done = BatchRunner(jobs: 3).run(
            items,
            work: { item -> Int in
                results.enter()
                defer { results.leave() }
                if item == 0 {
                    first.signal()
                    _ = second.wait(timeout: .now() + 60)
                } else if item == 1 {
                    second.signal()
                    _ = first.wait(timeout: .now() + 60)
                }
                usleep(500)
                return item * 2
            },
            completed: { index, item, result in results.record(index: index, value: result, item: item) })
        #expect(done == 200)
        #expect(results.values.sorted() == items.map { $0 * 2 })
        #expect(results.maxInFlight <= 3)
        #expect(results.maxInFlight >= 2)
    }

    @Test func stopsTakingWorkWhenAsked() {
        let results = ResultBox()
        let done = BatchRunner(jobs: 2).run(
            Array(0..<1000),
            shouldStop: { results.count >= 10 },
            work: { $0 },
            completed: { index, item, result in results.record(index: index, value: result, item: item) })
        #expect(done >= 10 && done < 20)
    }
}

/// Collects results from worker threads under a lock.
private final class ResultBox: Sendable {
    private struct State {
        var values: [Int] = []
        var inFlight = 0
        var maxInFlight = 0
    }
    private let state = Mutex(State())

    func enter() {
        state.withLock {
            $0.inFlight += 1
            $0.maxInFlight = max($0.maxInFlight, $0.inFlight)
        }
    }
    func leave() { state.withLock { $0.inFlight -= 1 } }
    func record(index: Int, value: Int, item: Int) {
        precondition(index == item)
        state.withLock { $0.values.append(value) }
    }
    var values: [Int] { state.withLock { $0.values } }
    var count: Int { state.withLock { $0.values.count } }
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }
}
