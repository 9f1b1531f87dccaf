import Foundation
import TestSupport
import Testing

/// `render` and `thumb` with `--shard K/N` on a real directory: the shards' outputs are the
/// unsharded batch's, each once, and both commands put each photo in the same shard.
@Suite(.libvips) struct ShardCommandTests {
    static func stems(_ files: [String]) -> Set<String> {
        Set(files.map { ($0 as NSString).deletingPathExtension })
    }

    @Test func theShardsOfABatchAreTheBatch() async throws {
        let input = try Fixtures.scratchDirectory("shard-in")
        try FileManager.default.createDirectory(atPath: input + "/sub", withIntermediateDirectories: true)
        for index in 0..<10 {
            let name = index < 5 ? "p\(index).png" : "sub/q\(index).png"
            try Synthetic.image(input + "/" + name, width: 240 + index, height: 170, bands: 3) { x, y in
                [UInt8((x * 3 + index) % 256), UInt8(y % 256), 90]
            }
        }
        let whole = try Fixtures.scratchDirectory("shard-whole")
        let all = try await RunCommandTests.run(["thumb", input, "--width", "40", "--out", whole, "--quiet"])
        #expect(all.status == 0, "\(all.stderr)")
        let everything = Fixtures.files(under: whole)
        #expect(everything.count == 10)

        var thumbShards: [Set<String>] = []
        var renderShards: [Set<String>] = []
        for index in 0..<3 {
            let thumbs = try Fixtures.scratchDirectory("shard-thumb-\(index)")
            let thumb = try await RunCommandTests.run([
                "thumb", input, "--width", "40", "--out", thumbs, "--quiet", "--run", "s", "--shard", "\(index)/3",
            ])
            #expect(thumb.status == 0, "\(thumb.stderr)")
            thumbShards.append(Set(Fixtures.files(under: thumbs).filter { !$0.hasPrefix("runs/") }))
            let cards = try Fixtures.scratchDirectory("shard-render-\(index)")
            let render = try await RunCommandTests.run([
                "render", input, "--out", cards, "--quiet", "--no-cache", "--run", "s", "--shard", "\(index)/3",
            ])
            #expect(render.status == 0, "\(render.stderr)")
            // One print file per card, `NAME.print.jpg`.
            let prints = Fixtures.files(under: cards).filter { $0.hasSuffix(".print.jpg") }
            renderShards.append(Set(prints.map { String($0.dropLast(".print.jpg".count)) }))
        }
        #expect(thumbShards.reduce(0) { $0 + $1.count } == 10, "each thumbnail in one shard only")
        #expect(thumbShards.reduce(Set()) { $0.union($1) } == Set(everything))
        #expect(thumbShards.map { Self.stems(Array($0)) } == renderShards, "render and thumb shard alike")
        #expect(thumbShards.filter(\.isEmpty).count < 3)
    }

    @Test func badShardsAreUsageErrors() async throws {
        let directory = try Fixtures.scratchDirectory("shard-bad")
        try Synthetic.quadrants(directory + "/q.png")
        for (arguments, words) in [
            (
                ["thumb", directory, "--width", "10", "--out", directory + "/o", "--run", "s", "--shard", "2/2"],
                "from 0 to 1"
            ),
            (
                ["thumb", directory, "--width", "10", "--out", directory + "/o", "--run", "s", "--shard", "1"],
                "expected K/N"
            ),
            (
                [
                    "thumb", directory + "/q.png", "--width", "10", "-o", directory + "/x.png", "--run", "s", "--shard",
                    "0/2",
                ],
                "--out DIR"
            ),
            (["render", directory, "--out", directory + "/o", "--run", "s", "--shard", "0/0"], "at least 1"),
        ] {
            let run = try await RunCommandTests.run(arguments)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr.contains(words), "\(arguments): \(run.stderr)")
        }
    }
}
