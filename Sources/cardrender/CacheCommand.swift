import ArgumentParser
import ObjectStore
import RenderCache

/// `cardrender cache`: look after the disk cache and, under `--cache s3://...`, the bucket
/// behind it.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Show, trim or check the content-addressed cache (the disk, and a bucket behind it).",
        subcommands: [Stats.self, GC.self, Verify.self]
    )

    /// `cardrender cache stats`.
    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Entries, bytes, and hit rate since stats began (and the bucket's entries and bytes).")
        @OptionGroup var options: CacheOptions

        func run() throws {
            let cache = try ContentStore(directory: options.directory)
            let objects = try cache.store.list()
            let bytes = objects.reduce(0) { $0 + $1.size }
            let statistics = CacheStatistics.read(options.directory)
            Console.out("cache: \(options.directory)")
            Console.out("entries: \(objects.count), bytes: \(bytes) (limit \(options.cacheMaxSize))")
            if let statistics {
                let counts = statistics.counts
                let rate = (counts.hitRate * 1000).rounded() / 10
                Console.out(
                    "since \(Console.timestamp(statistics.since)): hits \(counts.hits), misses \(counts.misses), "
                        + "hit rate \(rate) %, stores \(counts.stores), corrupt removed \(counts.corrupt), "
                        + "evicted \(counts.evicted)")
            } else {
                Console.out("no statistics yet")
            }
            if let bucket = options.sharedStore() {
                let stored = try bucket.list()
                Console.out(
                    "bucket: \(bucket.location): entries: \(stored.count), bytes: \(stored.reduce(0) { $0 + $1.size }) "
                        + "(evicted by the bucket's lifecycle rule)")
            }
        }
    }

    /// `cardrender cache gc`.
    struct GC: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "gc",
            abstract:
                "Remove least recently used entries until the disk cache fits its size bound (a bucket's lifecycle rule trims the bucket)."
        )
        @OptionGroup var options: CacheOptions

        @Option(
            help: ArgumentHelp(
                "The bound for this collection, e.g. 500M (default: --cache-max-size).", valueName: "size"))
        var maxSize: ByteCount?

        func run() throws {
            let bound = maxSize?.bytes ?? options.cacheMaxSize.bytes
            let cache = try ContentStore(directory: options.directory, maxBytes: bound) { Console.error($0) }
            guard let result = cache.collectGarbage() else { throw ExitCode(1) }
            cache.flushStatistics()
            Console.out(
                "removed \(result.removed) entries (\(result.removedBytes) bytes); \(result.entries) entries, \(result.bytes) bytes left"
            )
            if let bucket = options.sharedStore() {
                // A bucket has no "last used" time to collect by (a read does not change an
                // object), and every node would race to delete: the store's own lifecycle
                // rule expires objects (README: "Scaling out").
                Console.out("\(bucket.location): left to the bucket's lifecycle rule")
            }
        }
    }

    /// `cardrender cache verify`.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every entry's size and digest, on the disk and in the bucket; remove corrupt ones.")
        @OptionGroup var options: CacheOptions

        func run() throws {
            let cache = try ContentStore(directory: options.directory) { Console.error($0) }
            let result = try cache.entries.verify()
            cache.flushStatistics()
            Console.out("checked \(result.checked) entries, removed \(result.removed) corrupt")
            var removed = result.removed
            if let bucket = options.sharedStore() {
                let checked = try ContentCache(store: bucket) { Console.error($0) }.verify()
                Console.out(
                    "bucket: \(bucket.location): checked \(checked.checked) entries, removed \(checked.removed) corrupt"
                )
                removed += checked.removed
            }
            if removed > 0 { throw ExitCode(1) }
        }
    }
}
