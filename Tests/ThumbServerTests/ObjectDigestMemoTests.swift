import Testing

@testable import ThumbServer

/// The memo of checksum-less objects' digests keeps its bound: the oldest goes first, a
/// digest remembered again takes no second place, and a new entity tag is a new identity.
struct ObjectDigestMemoTests {
    @Test func theOldestDigestGoesFirstWhenFull() {
        let memo = ObjectDigestMemo(capacity: 2)
        memo.remember("d1", for: "photos/a.png\n\"e1\"\n10")
        memo.remember("d2", for: "photos/b.png\n\"e2\"\n20")
        memo.remember("d1", for: "photos/a.png\n\"e1\"\n10")
        #expect(memo.digest(for: "photos/a.png\n\"e1\"\n10") == "d1")
        #expect(memo.digest(for: "photos/a.png\n\"e9\"\n10") == nil, "a replaced object is another identity")
        memo.remember("d3", for: "photos/c.png\n\"e3\"\n30")
        #expect(memo.digest(for: "photos/a.png\n\"e1\"\n10") == nil)
        #expect(memo.digest(for: "photos/b.png\n\"e2\"\n20") == "d2")
        #expect(memo.digest(for: "photos/c.png\n\"e3\"\n30") == "d3")
        memo.remember("d4", for: "photos/d.png\n\"e4\"\n40")
        #expect(memo.digest(for: "photos/b.png\n\"e2\"\n20") == nil)
        #expect(memo.digest(for: "photos/c.png\n\"e3\"\n30") == "d3")
        #expect(memo.digest(for: "photos/d.png\n\"e4\"\n40") == "d4")
    }
}
