import Foundation  // NSCondition: a caller waits for another's making without spinning
import Synchronization

/// What a process keeps in memory between requests, bounded: values by a typed key, each with
/// a cost (bytes, or 1 to bound a count), the least recently used forgotten first. Every
/// in-process memory of cardrender is one: the server's thumbnails, bucket objects' digests
/// and verified entry files, the kept decodes, the colour transforms, the frame art.
///
/// Past `capacity` the least recently used values are dropped until a quarter of the capacity
/// is free again (one sort per eviction, not one per insert); a value costing more than
/// `capacity / largestShare` is never kept, so one large value cannot empty the memory.
/// `value(for:making:)` makes a missing value once however many callers ask for it at once:
/// the others wait for it (single flight).
public final class BoundedMemory<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The most the kept values may cost together.
    public let capacity: Int
    /// A value costing more than `capacity / largestShare` is not kept.
    public let largestShare: Int
    private let cost: @Sendable (Key, Value) -> Int
    private let state = Mutex(State())

    private struct Slot {
        var value: Value
        var used: UInt64
        let cost: Int
    }

    private struct State {
        var slots: [Key: Slot] = [:]
        var cost = 0
        var clock: UInt64 = 0
        var hits = 0
        var making: [Key: Making] = [:]
    }

    /// What a caller of `value(for:making:)` does: take the kept value, wait for another's
    /// making, or make it.
    private enum Role {
        case kept(Value)
        case waiting(Making)
        case making(Making)
    }

    /// A value being made, which other callers wait for.
    private final class Making: @unchecked Sendable {
        // Safe: `result` is written once, under `condition`'s lock, before `done` is set, and
        // read only under that lock after `done` is seen.
        let condition = NSCondition()
        var done = false
        var result: Result<Value, any Error>?
    }

    /// - Parameters:
    ///   - capacity: the most the kept values may cost together.
    ///   - largestShare: a value costing more than `capacity / largestShare` is not kept.
    ///   - cost: what a value costs (default: 1, so `capacity` bounds the count).
    public init(
        capacity: Int, largestShare: Int = 1, cost: @escaping @Sendable (Key, Value) -> Int = { _, _ in 1 }
    ) {
        self.capacity = max(0, capacity)
        self.largestShare = max(1, largestShare)
        self.cost = cost
    }

    /// The value kept for `key`, now the most recently used; nil when none is.
    public func value(for key: Key) -> Value? {
        state.withLock { state in
            guard var slot = state.slots[key] else { return nil }
            state.clock += 1
            state.hits += 1
            slot.used = state.clock
            state.slots[key] = slot
            return slot.value
        }
    }

    /// Changes the value kept for `key` in place (its cost stays as it was), now the most
    /// recently used, and returns what `change` returns; nil when none is kept.
    public func update<T>(_ key: Key, _ change: (inout Value) -> T) -> T? {
        state.withLock { state in
            guard var slot = state.slots[key] else { return nil }
            state.clock += 1
            slot.used = state.clock
            let result = change(&slot.value)
            state.slots[key] = slot
            return result
        }
    }

    /// Whether a value is kept for `key` (not counted as a use).
    public func contains(_ key: Key) -> Bool { state.withLock { $0.slots[key] != nil } }

    /// Whether a value of this cost would be kept at all.
    public func wouldKeep(cost: Int) -> Bool { cost <= capacity / largestShare }

    /// Keeps `value` for `key` (replacing what was kept), forgetting the least recently used
    /// when over the bound; a value too costly to keep is not.
    public func insert(_ value: Value, for key: Key) {
        let cost = cost(key, value)
        guard wouldKeep(cost: cost) else { return }
        state.withLock { state in
            state.clock += 1
            if let old = state.slots.updateValue(Slot(value: value, used: state.clock, cost: cost), forKey: key) {
                state.cost -= old.cost
            }
            state.cost += cost
            if state.cost > capacity { Self.evict(&state, toAtMost: capacity * 3 / 4, keeping: key) }
        }
    }

    /// Frees room for a value of `cost` about to be made (so the making and the kept values do
    /// not add up past the bound), forgetting the least recently used; nothing when such a
    /// value would not be kept.
    public func makeRoom(for cost: Int) {
        guard wouldKeep(cost: cost) else { return }
        state.withLock { state in
            if state.cost + cost > capacity { Self.evict(&state, toAtMost: capacity - cost, keeping: nil) }
        }
    }

    /// The value for `key`: the kept one, or the one `make` makes, kept. While one caller makes
    /// it, others asking for the same key wait and get the same value (or the same error).
    /// - Throws: what `make` throws (nothing is kept then, and the next caller tries again).
    ///   Every caller of one memory must throw the same error type: a waiter receives the
    ///   maker's error as its own.
    public func value<Failure: Error>(for key: Key, making make: () throws(Failure) -> Value) throws(Failure) -> Value {
        let role = state.withLock { state -> Role in
            if var slot = state.slots[key] {
                state.clock += 1
                state.hits += 1
                slot.used = state.clock
                state.slots[key] = slot
                return .kept(slot.value)
            }
            if let making = state.making[key] { return .waiting(making) }
            let making = Making()
            state.making[key] = making
            return .making(making)
        }
        switch role {
        case .kept(let value):
            return value
        case .waiting(let making):
            making.condition.lock()
            while !making.done { making.condition.wait() }
            let result = making.result!
            making.condition.unlock()
            switch result {
            case .success(let value): return value
            // The maker threw its `Failure`, the type every caller of this memory throws.
            case .failure(let error): throw error as! Failure
            }
        case .making(let making):
            let result: Result<Value, Failure>
            do throws(Failure) {
                result = .success(try make())
            } catch {
                result = .failure(error)
            }
            if case .success(let value) = result { insert(value, for: key) }
            state.withLock { _ = $0.making.removeValue(forKey: key) }
            making.condition.lock()
            making.result = result.mapError { $0 as any Error }
            making.done = true
            making.condition.broadcast()
            making.condition.unlock()
            return try result.get()
        }
    }

    /// Forgets the value kept for `key`, if any.
    public func removeValue(for key: Key) {
        state.withLock { state in
            if let old = state.slots.removeValue(forKey: key) { state.cost -= old.cost }
        }
    }

    /// The values kept and their cost together.
    public var usage: (count: Int, cost: Int) { state.withLock { ($0.slots.count, $0.cost) } }

    /// How many times a kept value was found (`value(for:)` and `value(for:making:)`).
    public var hits: Int { state.withLock { $0.hits } }

    /// Drops the least recently used values until the kept ones cost at most `bound`, never the
    /// value of `kept` (the one just inserted).
    private static func evict(_ state: inout State, toAtMost bound: Int, keeping kept: Key?) {
        for (key, slot) in state.slots.sorted(by: { $0.value.used < $1.value.used })
        where state.cost > bound && key != kept {
            state.slots.removeValue(forKey: key)
            state.cost -= slot.cost
        }
    }
}
