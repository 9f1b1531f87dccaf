#if canImport(Glibc)
    import Glibc
#endif

/// File sizes for planning batches.
public enum FileSizes {
    /// The size of the file at `path` in bytes (following links), nil if it cannot be read.
    public static func size(of path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    /// `items` with the largest file first (longest-processing-time-first scheduling: a
    /// big photo started last would leave the other workers idle at the end of a batch).
    /// Items without a readable file keep their order, last.
    public static func largestFirst<Item>(_ items: [Item], path: (Item) -> String?) -> [Item] {
        let sizes = items.map { path($0).flatMap(size(of:)) ?? -1 }
        return items.indices.sorted { sizes[$0] != sizes[$1] ? sizes[$0] > sizes[$1] : $0 < $1 }.map { items[$0] }
    }
}
