import ArgumentParser
import RenderCache

/// Disk-cache options shared by `render`, `thumb` and `cache`.
struct CacheOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The cache directory (default: $XDG_CACHE_HOME/cardrender or ~/.cache/cardrender).", valueName: "dir"))
    var cache: String?

    @Flag(help: "Neither read nor fill the cache.")
    var noCache = false

    @Option(
        help: ArgumentHelp(
            "Largest size of the cache, e.g. 500M or 2G (least recently used entries go first).", valueName: "size"))
    var cacheMaxSize: ByteCount = ByteCount(bytes: 2 << 30)

    /// The cache directory these options name.
    var directory: String { cache ?? DiskStore.defaultDirectory }

    /// Opens the cache unless `--no-cache`; problems are reported and the work goes on uncached.
    func open() -> LocalCache? {
        guard !noCache else { return nil }
        do {
            return try LocalCache(directory: directory, maxBytes: cacheMaxSize.bytes) { Console.error($0) }
        } catch {
            Console.error("cardrender: warning: the cache cannot be used (\(error)); working without it.")
            return nil
        }
    }
}

/// A size in bytes written as a number with an optional K, M, G or T suffix (powers of 1024).
struct ByteCount: ExpressibleByArgument, CustomStringConvertible {
    let bytes: Int

    init(bytes: Int) {
        self.bytes = bytes
    }

    init?(argument: String) {
        var text = argument.uppercased()
        for suffix in ["IB", "B"] where text.hasSuffix(suffix) && text.count > suffix.count {
            text.removeLast(suffix.count)
        }
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var multiplier = 1
        if let last = text.last, let unit = units[last] {
            multiplier = unit
            text.removeLast()
        }
        guard let value = Double(text), value >= 0, value * Double(multiplier) < Double(Int.max) else { return nil }
        bytes = Int(value * Double(multiplier))
    }

    var description: String {
        for (unit, size) in [("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)] where bytes >= size && bytes % size == 0 {
            return "\(bytes / size)\(unit)"
        }
        return "\(bytes)"
    }
}
