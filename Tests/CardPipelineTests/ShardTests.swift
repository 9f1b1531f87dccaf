import CardPipeline
import Testing

/// `--shard K/N`: the N shards of a batch hold every item exactly once, an item's shard
/// depends on its own relative path only (stable when items are added, in any order, on any
/// machine), and bad values are refused naming what is wrong.
struct ShardTests {
    static let paths = (0..<1000).map { "dir \($0 % 7)/photo-\($0).jpg" }

    @Test(arguments: [1, 2, 3, 4, 7, 16])
    func theShardsHoldEveryItemOnce(_ count: Int) throws {
        let shards = try (0..<count).map { try Shard(index: $0, count: count) }
        var seen: [String: Int] = [:]
        for shard in shards {
            for path in Self.paths where shard.contains(path) { seen[path, default: 0] += 1 }
        }
        #expect(seen.count == Self.paths.count)
        #expect(seen.values.allSatisfy { $0 == 1 })
        // Not all in one shard: the hash spreads them (each shard within 30 % of its share).
        for shard in shards {
            let share = Self.paths.filter(shard.contains).count
            #expect(abs(Double(share) / (1000 / Double(count)) - 1) < 0.3, "\(shard): \(share)")
        }
    }

    /// The assignment is SHA-256 based and pinned: a retried or resumed shard on another
    /// machine or version picks exactly the same items.
    @Test func theAssignmentIsPinned() {
        #expect(Shard.index(of: "a.jpg", count: 1) == 0)
        #expect(
            [Shard.index(of: "a.jpg", count: 1000), Shard.index(of: "holiday/b.png", count: 1000)]
                == Self.pinned)
        // Adding items moves none: the index is a function of the path alone.
        let before = Self.paths.prefix(100).map { Shard.index(of: $0, count: 5) }
        let after = (Self.paths + ["new-1.jpg", "new-2.jpg"]).prefix(100).map { Shard.index(of: $0, count: 5) }
        #expect(before == after)
    }

    /// Computed independently: `int.from_bytes(hashlib.sha256(path.encode()).digest()[:8],
    /// "big") % 1000` in Python.
    static let pinned = [26, 305]

    @Test func badValuesAreRefusedNamingTheProblem() throws {
        #expect(try Shard(parsing: "3/16") == Shard(index: 3, count: 16))
        #expect(try Shard(parsing: "0/1").description == "0/1")
        for text in ["", "3", "a/b", "1/2/3", "/4", "1/", " 1/2", "1.0/2"] {
            #expect(throws: ShardError.malformed(text)) { try Shard(parsing: text) }
        }
        #expect(throws: ShardError.outOfRange(index: 4, count: 4)) { try Shard(parsing: "4/4") }
        #expect(throws: ShardError.outOfRange(index: -1, count: 4)) { try Shard(parsing: "-1/4") }
        #expect(throws: ShardError.outOfRange(index: 0, count: 0)) { try Shard(parsing: "0/0") }
        #expect(ShardError.outOfRange(index: 4, count: 4).description.contains("from 0 to 3"))
        #expect(ShardError.malformed("x").description.contains("'x'"))
    }
}
