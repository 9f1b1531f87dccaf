import ArgumentParser
import RenderCache

/// `cardrender cache`: look after the disk cache.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Show, trim or check the content-addressed disk cache.",
        subcommands: [Stats.self, GC.self, Verify.self]
    )

    /// `cardrender cache stats`.
    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Entries, bytes, and hit rate since stats began.")
        @OptionGroup var options: CacheOptions

        func run() throws {
            let cache = try LocalCache(directory: options.directory)
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
        }
    }

    /// `cardrender cache gc`.
    struct GC: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "gc", abstract: "Remove least recently used entries until the cache fits its size bound.")
        @OptionGroup var options: CacheOptions

        @Option(
            help: ArgumentHelp(
                "The bound for this collection, e.g. 500M (default: --cache-max-size).", valueName: "size"))
        var maxSize: ByteCount?

        func run() throws {
            let bound = maxSize?.bytes ?? options.cacheMaxSize.bytes
            let cache = try LocalCache(directory: options.directory, maxBytes: bound) { Console.error($0) }
            guard let result = cache.collectGarbage() else { throw ExitCode(1) }
            cache.flushStatistics()
            Console.out(
                "removed \(result.removed) entries (\(result.removedBytes) bytes); \(result.entries) entries, \(result.bytes) bytes left"
            )
        }
    }

    /// `cardrender cache verify`.
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every entry's size and digest; remove corrupt ones.")
        @OptionGroup var options: CacheOptions

        func run() throws {
            let cache = try LocalCache(directory: options.directory) { Console.error($0) }
            let result = try cache.cache.verify()
            cache.flushStatistics()
            Console.out("checked \(result.checked) entries, removed \(result.removed) corrupt")
            if result.removed > 0 { throw ExitCode(1) }
        }
    }
}
