/// What a batch will do, before it starts: the jobs in the order they will be started
/// (largest inputs first), plus what the walk could not use.
public struct BatchPlan<Job: Sendable>: Sendable {
    /// The jobs, largest inputs first.
    public var jobs: [Job]
    /// Arguments that do not exist or cannot be read, as whole sentences; each counts as a
    /// failed item.
    public var problems: [String]
    /// Files under the input directories that are not inputs of this batch.
    public var skipped: [String]
    /// Inputs whose outputs would have the same name (`a.jpg` and `a.png`; `x/a.jpg` and
    /// `y/a.jpg` given as two arguments), one sentence per clash. Decided from the whole
    /// batch, before sharding, so every shard sees the same: a batch with a clash is refused
    /// before anything is rendered (one input's files would silently replace the other's).
    public var clashes: [String]

    public init(jobs: [Job], problems: [String], skipped: [String], clashes: [String] = []) {
        self.jobs = jobs
        self.problems = problems
        self.skipped = skipped
        self.clashes = clashes
    }

    /// The plan of one shard: the jobs whose input (`relativePath`: the path relative to
    /// the input root) belongs to `shard`, in the same order; every shard keeps the
    /// problems (each shard's run must fail on a missing input), the skipped files and the
    /// clashes.
    public func sharded(_ shard: Shard, relativePath: (Job) -> String) -> BatchPlan {
        BatchPlan(
            jobs: jobs.filter { shard.contains(relativePath($0)) }, problems: problems, skipped: skipped,
            clashes: clashes)
    }
}
