import ArgumentParser
import CardPipeline

/// `--shard K/N`, shared by `render` and `thumb` (which must pick the same inputs).
struct ShardOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Only the inputs of shard K of N (0 <= K < N), chosen by a hash of each input's path relative to its input root: the N shards of a batch (e.g. the tasks of a scheduler's array job) together do every input once.",
            valueName: "K/N"),
        transform: { text in
            do throws(ShardError) { return try Shard(parsing: text) } catch { throw ValidationError(error.description) }
        })
    var shard: Shard?
}
