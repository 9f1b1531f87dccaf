import ArgumentParser
import CardPipeline
import FileUtilities

/// `--shard K/N` and `--run ID`, shared by `render` and `thumb` (which must pick the same
/// inputs and leave the same kind of record).
struct RunOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Only the inputs of shard K of N (0 <= K < N), chosen by a hash of each input's path relative to its input root: the N shards of a batch (e.g. the tasks of a scheduler's array job) together do every input once. Needs --run.",
            valueName: "K/N"),
        transform: { text in
            do throws(ShardError) { return try Shard(parsing: text) } catch { throw ValidationError(error.description) }
        })
    var shard: Shard?

    @Option(
        name: .customLong("run"),
        help: ArgumentHelp(
            "Name of the run this batch (or shard) belongs to: its manifest goes to OUT/runs/ID/shard-K-of-N.jsonl for `cardrender runs verify` and `runs merge`, and inputs it rejects end the shard with status 0 (recorded, not retried).",
            valueName: "id"))
    var run: String?

    func validate() throws {
        if let run, !RunManifest.isValidName(run) {
            throw ValidationError(
                "--run must be 1 to 100 letters, digits, '.', '_' or '-', not starting with '.'; received '\(run)'.")
        }
        if shard != nil && run == nil {
            throw ValidationError(
                "--shard needs --run ID: the name the shards' manifests share, for `runs verify` and `runs merge`.")
        }
    }

    /// The shard, or the whole batch as shard 0 of 1.
    var part: Shard { shard ?? .whole }

    /// Writes this shard's manifest under `out` and says where on standard error.
    func writeManifest(
        kind: RunManifest.Kind, producer: String, entries: [RunManifest.Entry], items: Int, seconds: Double,
        out: String, quiet: Bool
    ) throws {
        guard let run else { return }
        let manifest = RunManifest(
            header: RunManifest.Header(
                run: run, shard: part, kind: kind, producer: producer, items: items,
                seconds: (seconds * 100).rounded() / 100),
            entries: entries)
        let path: String
        do {
            path = try manifest.write(into: RunManifest.directory(run: run, output: out))
        } catch let error as AtomicFile.WriteError where error.isTemporary {
            Console.error(
                "cardrender: the run's manifest cannot be written (\(error)). Exiting 75 (temporary failure) so that this shard is run again."
            )
            throw ExitCode(75)
        }
        if !quiet { Console.error("cardrender: manifest: \(path)") }
    }

    /// Ends a batch some of whose items the machine failed (a full disk): exit 75
    /// (`EX_TEMPFAIL`), so the scheduler runs the shard again.
    static func checkTemporary(failed: Int) throws {
        guard failed > 0 else { return }
        Console.error(
            "cardrender: \(failed) item(s) failed for want of the machine (disk full or I/O error), not because of the input. Exiting 75 (temporary failure) so that this shard is run again."
        )
        throw ExitCode(75)
    }

    /// Refuses a batch two of whose inputs would write files of the same name (exit 64, a
    /// usage error, before anything is rendered), listing every clash. Decided from the
    /// whole batch, so every shard of a run refuses alike.
    static func refuseClashes(_ clashes: [String]) throws {
        guard !clashes.isEmpty else { return }
        for clash in clashes { Console.error("cardrender: \(clash)") }
        Console.error(
            "cardrender: \(clashes.count) output name(s) would be written twice; nothing was rendered. Rename the inputs, or render them into separate --out folders."
        )
        throw ExitCode(64)
    }
}
