import FileUtilities
import Foundation
import RenderCache
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The local cache: `DiskStore` under `ContentCache`, the digest memo, statistics, eviction.
@Suite struct DiskCacheTests {
    struct Recipe: Encodable {
        var width: Int
    }

    func key(_ digest: String, width: Int = 200) throws -> CacheKey {
        try CacheKey(inputDigest: digest, recipe: Recipe(width: width), versions: "test")
    }

    func scratch(_ label: String = #function) throws -> String {
        let path =
            NSTemporaryDirectory() + "cardrender-tests/\(label.filter(\.isLetter))-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func sameBytesUnderTwoNamesAreOneEntry() throws {
        let directory = try scratch()
        let local = try ContentStore(directory: directory + "/cache")
        try Data("the same photo".utf8).write(to: URL(fileURLWithPath: directory + "/a.jpg"))
        try Data("the same photo".utf8).write(to: URL(fileURLWithPath: directory + "/b copy.jpg"))
        let first = try key(local.memo.digest(ofFile: directory + "/a.jpg"))
        let second = try key(local.memo.digest(ofFile: directory + "/b copy.jpg"))
        #expect(first == second)
        try local.entries.store(CacheEntry(parts: [("image", Data([1, 2, 3]))]), for: first)
        #expect(local.entries.entry(for: second)?.part("image") == Data([1, 2, 3]))
        // One changed byte is another key, and so is another recipe.
        try Data("the same phot0".utf8).write(to: URL(fileURLWithPath: directory + "/b copy.jpg"))
        let changed = try key(local.memo.digest(ofFile: directory + "/b copy.jpg"))
        #expect(changed != first)
        #expect(local.entries.entry(for: changed) == nil)
        #expect(try key(local.memo.digest(ofFile: directory + "/a.jpg"), width: 201) != first)
        let counts = local.entries.sessionCounts
        #expect(counts.hits == 1 && counts.misses == 1 && counts.stores == 1)
    }

    @Test func digestMemoFollowsSizeAndModificationTime() throws {
        let directory = try scratch()
        let memo = try DigestMemo(directory: directory + "/memo")
        let path = directory + "/photo.jpg"
        try Data("version one".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try memo.digest(ofFile: path) == ContentDigest.of(Data("version one".utf8)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/memo").count == 1)
        // Rewritten in place with the same size and a new modification time: a new answer.
        try Data("version two".utf8).write(to: URL(fileURLWithPath: path))
        var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        #expect(try memo.digest(ofFile: path) == ContentDigest.of(Data("version two".utf8)))
    }

    @Test func putIsWholeOrAbsentAndNeverReplaces() throws {
        let directory = try scratch()
        let store = try DiskStore(directory: directory)
        let entryKey = try key("abc")
        #expect(try store.put([1, 2, 3], for: entryKey) == .stored)
        #expect(try store.put([9, 9], for: entryKey) == .alreadyPresent)
        #expect(try store.get(entryKey) == [1, 2, 3])
        #expect(try store.get(key("other")) == nil)
        // No temporary name is ever made: the shard holds the object alone.
        let shard = (store.path(of: entryKey) as NSString).deletingLastPathComponent
        #expect(try FileManager.default.contentsOfDirectory(atPath: shard) == [entryKey.hex])
        // Eight threads storing the same key: one stores, the others find it there.
        let outcomes = Mutex<[PutOutcome]>([])
        let racing = try key("race")
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            if let outcome = try? store.put(Array(repeating: 7, count: 100_000), for: racing) {
                outcomes.withLock { $0.append(outcome) }
            }
        }
        let all = outcomes.withLock { $0 }
        #expect(all.count == 8 && all.filter { $0 == .stored }.count == 1)
    }

    @Test func corruptEntryIsRemovedNotServed() throws {
        let directory = try scratch()
        let lines = LogLines()
        let local = try ContentStore(directory: directory) { lines.append($0) }
        let entryKey = try key("abc")
        let entry = CacheEntry(
            parts: [("print", Data(repeating: 7, count: 5000)), ("small", Data([9]))], metadata: Data("{}".utf8))
        try local.entries.store(entry, for: entryKey)
        #expect(local.entries.entry(for: entryKey) == entry)
        // Flip one byte in the middle of the stored file.
        let path = local.store.path(of: entryKey)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(local.entries.entry(for: entryKey) == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(lines.all.contains { $0.contains("removed corrupt entry \(entryKey)") })
        #expect(local.entries.sessionCounts.corrupt == 1)
        // Truncated files are caught too, by `verify`.
        try local.entries.store(entry, for: entryKey)
        try Data(bytes.prefix(100)).write(to: URL(fileURLWithPath: path))
        #expect(try local.entries.verify() == (checked: 1, removed: 1))
    }

    /// A store that cannot be read is a logged miss, not a failure.
    @Test func unreadableObjectIsALoggedMiss() throws {
        let directory = try scratch()
        let lines = LogLines()
        let local = try ContentStore(directory: directory) { lines.append($0) }
        let entryKey = try key("dir")
        try FileManager.default.createDirectory(
            atPath: local.store.path(of: entryKey), withIntermediateDirectories: true)
        #expect(local.entries.entry(for: entryKey) == nil)
        #expect(lines.all.contains { $0.contains("cannot be read") && $0.contains("Working without the cache") })
    }

    @Test func evictionKeepsTheBoundAndRemovesLeastRecentlyUsedFirst() throws {
        let directory = try scratch()
        let local = try ContentStore(directory: directory, maxBytes: 25_000)
        var keys: [CacheKey] = []
        for index in 0..<5 {
            let entryKey = try key("input-\(index)")
            keys.append(entryKey)
            try local.entries.store(
                CacheEntry(parts: [("image", Data(repeating: UInt8(index), count: 10_000))]), for: entryKey)
            // Stored at distinct, increasing times.
            var times = [timespec(tv_sec: 1000 + index, tv_nsec: 0), timespec(tv_sec: 1000 + index, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, local.store.path(of: entryKey), &times, 0) == 0)
        }
        // Use entries 0 and 1 now: they become the most recently used.
        #expect(local.entries.entry(for: keys[0]) != nil)
        #expect(local.entries.entry(for: keys[1]) != nil)
        let result = try #require(local.collectGarbage())
        #expect(result.bytes <= 25_000)
        #expect(result.removed == 3)
        #expect(local.entries.entry(for: keys[0]) != nil && local.entries.entry(for: keys[1]) != nil)
        for index in 2..<5 { #expect(local.entries.entry(for: keys[index]) == nil, "entry \(index) should be gone") }
    }

    @Test func statisticsMergeAcrossSessions() throws {
        let directory = try scratch()
        for _ in 0..<2 {
            let local = try ContentStore(directory: directory)
            let entryKey = try key("x")
            if local.entries.entry(for: entryKey) == nil {
                try local.entries.store(CacheEntry(parts: [("image", Data([1]))]), for: entryKey)
            }
            local.flushStatistics()
        }
        let statistics = try #require(CacheStatistics.read(directory))
        #expect(statistics.counts.hits == 1 && statistics.counts.misses == 1 && statistics.counts.stores == 1)
        #expect(statistics.counts.hitRate == 0.5)
    }

    /// A store that cannot be written (here: the shard's place is taken by a file) is
    /// logged, not thrown: the work was done and must not fail for the cache.
    @Test func unwritableStoreIsLoggedNotThrown() throws {
        let directory = try scratch()
        let lines = LogLines()
        let local = try ContentStore(directory: directory) { lines.append($0) }
        let entryKey = try key("blocked")
        let shard = directory + "/objects/" + String(entryKey.hex.prefix(2))
        _ = FileManager.default.createFile(atPath: shard, contents: Data([0]))
        local.entries.storeIfPossible(CacheEntry(parts: [("image", Data([1]))]), for: entryKey)
        #expect(lines.all.contains { $0.contains("cannot be written") && $0.contains("not cached") })
        #expect(local.entries.entry(for: entryKey) == nil)
    }
}

/// Log lines collected from the cache, possibly from several threads.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// `memo/` holds one file per input file ever seen; garbage collection keeps it bounded,
/// the most recently written memos kept.
@Suite struct DigestMemoBoundTests {
    @Test func collectionKeepsTheNewestMemos() throws {
        let directory = NSTemporaryDirectory() + "memo-bound-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let local = try ContentStore(directory: directory, maxMemoEntries: 5)
        for index in 0..<12 {
            let stamp = FileStamp(device: 1, inode: UInt64(index), size: 10, modifiedSeconds: 0, modifiedNanoseconds: 0)
            local.memo.remember(String(repeating: "a", count: 64), for: stamp)
            // Written one after another: give each a distinct, increasing time.
            var times = [timespec(tv_sec: 1_000 + index, tv_nsec: 0), timespec(tv_sec: 1_000 + index, tv_nsec: 0)]
            utimensat(AT_FDCWD, directory + "/memo/1-\(index)", &times, 0)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/memo").count == 12)
        local.collectGarbage()
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory + "/memo").sorted()
        #expect(kept == (7..<12).map { "1-\($0)" }.sorted())
    }
}
