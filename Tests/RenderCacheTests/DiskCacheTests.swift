import Foundation
import RenderCache
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct DiskCacheTests {
    struct Recipe: Encodable {
        var width: Int
    }

    func key(_ digest: String, width: Int = 200) throws -> CacheKey {
        try CacheKey(inputDigest: digest, recipe: Recipe(width: width), versions: "test")
    }

    @Test func sameBytesUnderTwoNamesAreOneEntry() throws {
        let directory = try Fixtures.scratchDirectory()
        let cache = try DiskCache(directory: directory + "/cache")
        try Data("the same photo".utf8).write(to: URL(fileURLWithPath: directory + "/a.jpg"))
        try Data("the same photo".utf8).write(to: URL(fileURLWithPath: directory + "/b copy.jpg"))
        let first = try key(cache.digest(ofFile: directory + "/a.jpg"))
        let second = try key(cache.digest(ofFile: directory + "/b copy.jpg"))
        #expect(first == second)
        try cache.store(CacheEntry(parts: [("image", Data([1, 2, 3]))]), for: first)
        #expect(cache.entry(for: second)?.part("image") == Data([1, 2, 3]))
        // One changed byte is another key, and so is another recipe.
        try Data("the same phot0".utf8).write(to: URL(fileURLWithPath: directory + "/b copy.jpg"))
        let changed = try key(cache.digest(ofFile: directory + "/b copy.jpg"))
        #expect(changed != first)
        #expect(cache.entry(for: changed) == nil)
        #expect(try key(cache.digest(ofFile: directory + "/a.jpg"), width: 201) != first)
        let counts = cache.sessionCounts
        #expect(counts.hits == 1 && counts.misses == 1 && counts.stores == 1)
    }

    @Test func digestMemoFollowsSizeAndModificationTime() throws {
        let directory = try Fixtures.scratchDirectory()
        let cache = try DiskCache(directory: directory + "/cache")
        let path = directory + "/photo.jpg"
        try Data("version one".utf8).write(to: URL(fileURLWithPath: path))
        let one = try cache.digest(ofFile: path)
        #expect(one == ContentDigest.of(Data("version one".utf8)))
        #expect(Fixtures.files(under: directory + "/cache/memo").count == 1)
        // Rewritten in place with the same size: the modification time changes the answer.
        usleep(20_000)
        try Data("version two".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try cache.digest(ofFile: path) == ContentDigest.of(Data("version two".utf8)))
    }

    @Test func corruptEntryIsRemovedNotServed() throws {
        let directory = try Fixtures.scratchDirectory()
        var logged: [String] = []
        let lines = LogLines()
        let cache = try DiskCache(directory: directory) { lines.append($0) }
        let entryKey = try key("abc")
        let entry = CacheEntry(
            parts: [("print", Data(repeating: 7, count: 5000)), ("small", Data([9]))], metadata: Data("{}".utf8))
        try cache.store(entry, for: entryKey)
        #expect(cache.entry(for: entryKey) == entry)
        // Flip one byte in the middle of the stored file.
        let path = cache.objectPath(entryKey)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(cache.entry(for: entryKey) == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        logged = lines.all
        #expect(logged.contains { $0.contains("removed corrupt entry \(entryKey)") })
        #expect(cache.sessionCounts.corrupt == 1)
        // Truncated files are caught too, by `verify`.
        try cache.store(entry, for: entryKey)
        try Data(bytes.prefix(100)).write(to: URL(fileURLWithPath: path))
        #expect(cache.verify() == (checked: 1, removed: 1))
    }

    @Test func evictionKeepsTheBoundAndRemovesLeastRecentlyUsedFirst() throws {
        let directory = try Fixtures.scratchDirectory()
        let cache = try DiskCache(directory: directory, maxBytes: 25_000)
        var keys: [CacheKey] = []
        for index in 0..<5 {
            let entryKey = try key("input-\(index)")
            keys.append(entryKey)
            try cache.store(CacheEntry(parts: [("image", Data(repeating: UInt8(index), count: 10_000))]), for: entryKey)
            usleep(15_000)
        }
        // Use entries 0 and 1 now: they become the most recently used.
        #expect(cache.entry(for: keys[0]) != nil)
        usleep(15_000)
        #expect(cache.entry(for: keys[1]) != nil)
        let result = cache.collectGarbage()
        #expect(result.bytes <= 25_000)
        #expect(result.removed == 3)
        #expect(cache.entry(for: keys[0]) != nil && cache.entry(for: keys[1]) != nil)
        for index in 2..<5 { #expect(cache.entry(for: keys[index]) == nil, "entry \(index) should be gone") }
    }

    @Test func statisticsMergeAcrossSessions() throws {
        let directory = try Fixtures.scratchDirectory()
        for _ in 0..<2 {
            let cache = try DiskCache(directory: directory)
            let entryKey = try key("x")
            if cache.entry(for: entryKey) == nil {
                try cache.store(CacheEntry(parts: [("image", Data([1]))]), for: entryKey)
            }
            cache.flushStatistics()
        }
        let statistics = try #require(Statistics.read(directory))
        #expect(statistics.counts.hits == 1 && statistics.counts.misses == 1 && statistics.counts.stores == 1)
        #expect(statistics.counts.hitRate == 0.5)
    }

    /// A store that cannot be written (here: the shard's place is taken by a file) is
    /// logged, not thrown: the work was done and must not fail for the cache.
    @Test func unwritableStoreIsLoggedNotThrown() throws {
        let directory = try Fixtures.scratchDirectory()
        let lines = LogLines()
        let cache = try DiskCache(directory: directory) { lines.append($0) }
        let entryKey = try key("blocked")
        let shard = directory + "/objects/" + String(entryKey.hex.prefix(2))
        _ = FileManager.default.createFile(atPath: shard, contents: Data([0]))
        cache.storeIfPossible(CacheEntry(parts: [("image", Data([1]))]), for: entryKey)
        #expect(lines.all.contains { $0.contains("cannot be written") && $0.contains("not cached") })
        #expect(cache.entry(for: entryKey) == nil)
    }

    @Test func leftOverTemporaryFilesOfDeadProcessesAreRemoved() throws {
        let directory = try Fixtures.scratchDirectory()
        _ = try DiskCache(directory: directory)
        // A process id that cannot be running (above pid_max) left a half-written file.
        _ = FileManager.default.createFile(atPath: directory + "/tmp/99999999-1", contents: Data([1, 2]))
        _ = FileManager.default.createFile(atPath: directory + "/tmp/\(getpid())-7", contents: Data([1]))
        _ = try DiskCache(directory: directory)
        #expect(Fixtures.files(under: directory + "/tmp") == ["\(getpid())-7"])
    }
}

/// Log lines collected from the cache, possibly from several threads.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
