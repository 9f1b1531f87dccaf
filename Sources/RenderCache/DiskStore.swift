import FileUtilities
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A `CacheStore` in a local directory, shared by threads and processes.
///
/// Objects live at `objects/ab/cd/<key>`. A put links a finished anonymous file straight to
/// that name (`AtomicFile.create`): there is no temporary name to leave behind, and an
/// existing object is never replaced. Least-recently-used order is the objects'
/// modification time, which `touch` sets to now: it survives restarts and does not depend
/// on `atime` or `noatime`.
public struct DiskStore: CacheStore {
    /// The cache directory.
    public let directory: String

    /// Opens (creating if needed) the store under `directory`.
    /// - Throws: `CacheError.unwritable` when the directory cannot be created.
    public init(directory: String) throws(CacheError) {
        self.directory = directory
        try Self.makeDirectories(directory + "/objects")
    }

    public var location: String { directory }

    /// The default location: `$XDG_CACHE_HOME/cardrender`, else `~/.cache/cardrender`.
    public static var defaultDirectory: String {
        if let xdg = getenv("XDG_CACHE_HOME").map({ String(cString: $0) }), xdg.hasPrefix("/") {
            return xdg + "/cardrender"
        }
        let home = getenv("HOME").map { String(cString: $0) } ?? "/tmp"
        return home + "/.cache/cardrender"
    }

    /// Where the object of `key` lives.
    public func path(of key: CacheKey) -> String {
        let hex = key.hex
        return "\(directory)/objects/\(hex.prefix(2))/\(hex.dropFirst(2).prefix(2))/\(hex)"
    }

    public func get(_ key: CacheKey) throws(CacheError) -> [UInt8]? {
        let path = path(of: key)
        do {
            let descriptor = try FileDescriptor.open(path, .readOnly, options: .closeOnExec)
            defer { try? descriptor.close() }
            return try descriptor.readAll()
        } catch Errno.noSuchFileOrDirectory {
            return nil
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
    }

    public func put(_ object: [UInt8], for key: CacheKey) throws(CacheError) -> PutOutcome {
        let path = path(of: key)
        try Self.makeDirectories(String(path[..<path.lastIndex(of: "/")!]))
        do {
            return try AtomicFile.create(object, at: path) ? .stored : .alreadyPresent
        } catch {
            throw .unwritable(path: path, reason: error.reason)
        }
    }

    public func touch(_ key: CacheKey) {
        utimes(path(of: key), nil)
    }

    public func remove(_ key: CacheKey) throws(CacheError) {
        let path = path(of: key)
        guard unlink(path) == 0 || errno == ENOENT else {
            throw .unwritable(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// Every object under `objects/`. Also removes what dead writers left in the shard
    /// directories (only on file systems without `O_TMPFILE` can there be any).
    public func list() throws(CacheError) -> [StoredObject] {
        var found: [StoredObject] = []
        let objects = directory + "/objects"
        guard let firsts = Self.names(in: objects) else {
            throw .unreadable(path: objects, reason: String(cString: strerror(errno)))
        }
        for first in firsts {
            for second in Self.names(in: objects + "/" + first) ?? [] {
                let shard = objects + "/" + first + "/" + second
                AtomicFile.removeDeadTemporaries(in: shard)
                for name in Self.names(in: shard) ?? [] {
                    guard let key = CacheKey(hex: name) else { continue }
                    var info = stat()
                    guard stat(shard + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
                    let used = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
                    found.append(StoredObject(key: key, size: Int(info.st_size), lastUsed: used))
                }
            }
        }
        return found
    }

    /// The names in `directory` that do not start with a dot; nil when it cannot be read.
    private static func names(in directory: String) -> [String]? {
        guard let stream = opendir(directory) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names
    }

    /// `mkdir -p`, safe when other processes create the same directories at once.
    static func makeDirectories(_ path: String) throws(CacheError) {
        var built = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            built += "/" + component
            if mkdir(built, 0o755) != 0 && errno != EEXIST {
                throw .unwritable(path: built, reason: String(cString: strerror(errno)))
            }
        }
    }
}
