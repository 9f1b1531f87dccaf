import Synchronization
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Writes files so that readers, and a process killed at any instant, see the whole new
/// file or none of it.
///
/// On Linux the bytes go into an anonymous file (`O_TMPFILE`) in the destination's
/// directory: until it is linked in it has no name, so a writer killed mid-write leaves
/// nothing behind. It is then linked under a temporary name and renamed over the
/// destination (`write`), or linked straight to the destination, which fails if that
/// exists (`create`: put-if-absent with no temporary name at all). File systems without
/// `O_TMPFILE` get a named temporary file instead. Either way a temporary name is
/// `.NAME.tmp-PID-HOST-RANDOM`: it carries its writer's process id and a tag of the
/// machine and process namespace it runs in (`hostTag`), so `removeDeadTemporaries` can
/// tell a dead writer's left-over (a kill between link and rename) from a live writer's
/// file, and removes only the first. A pid means nothing on another host (a shared output
/// folder on NFS, containers with their own pid namespaces): other hosts' files are
/// removed only once they are an hour old.
public enum AtomicFile {
    /// A file could not be written; names the file and the cause.
    public struct WriteError: Error, Sendable, CustomStringConvertible {
        /// The destination path.
        public let file: String
        /// What went wrong (the system's words).
        public let reason: String
        /// The system's error number, when the system refused.
        public let code: Int32?

        public init(file: String, reason: String, code: Int32? = nil) {
            self.file = file
            self.reason = reason
            self.code = code
        }

        /// The error `errno` holds now, for `file`.
        static func lastError(file: String) -> WriteError {
            let code = errno
            return WriteError(file: file, reason: errnoText(), code: code)
        }

        /// Whether the machine, not the request, failed in a way that passes (a full disk
        /// or quota, an I/O error): the same write may succeed later or elsewhere, so a
        /// batch should be run again rather than the input given up on.
        public var isTemporary: Bool {
            guard let code else { return false }
            return [ENOSPC, EDQUOT, EIO].contains(code)
        }

        public var description: String { "\(file): cannot be written: \(reason)." }
    }

    /// Writes `bytes` to `path`, replacing any file there, atomically.
    /// - Parameters:
    ///   - bytes: the whole contents.
    ///   - path: the destination; its directory must exist.
    ///   - durable: `fsync` the file before it gets its name (on by default).
    /// - Throws: `WriteError` naming `path`; `path` is then untouched and no file is left.
    public static func write(_ bytes: some ContiguousBytes, to path: String, durable: Bool = true)
        throws(WriteError)
    {
        let pending = try PendingFile(beside: path)
        try pending.fill(bytes, durable: durable)
        try pending.rename(to: path)
    }

    /// Writes `bytes` to `path` only if no file is there (put-if-absent), atomically.
    /// - Returns: true when written, false when a file already existed (it is left as it was).
    /// - Throws: `WriteError` naming `path`.
    @discardableResult
    public static func create(_ bytes: some ContiguousBytes, at path: String, durable: Bool = false)
        throws(WriteError) -> Bool
    {
        let pending = try PendingFile(beside: path)
        try pending.fill(bytes, durable: durable)
        return try pending.link(to: path)
    }

    // MARK: Temporary names

    /// Who wrote a temporary file: the host tag and the process id.
    public struct Writer: Sendable, Equatable {
        /// `AtomicFile.hostTag` of the writer's machine and pid namespace.
        public let host: String
        public let pid: pid_t
    }

    /// This machine and pid namespace, as a short tag: a hash of the kernel's boot id (new
    /// at every boot), the pid namespace and the host name. Two writers with the same tag
    /// share a process table, so one can ask the kernel whether the other still runs.
    public static let hostTag: String = {
        func read(_ path: String) -> String {
            (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        }
        var buffer = [CChar](repeating: 0, count: 256)
        let count = readlink("/proc/self/ns/pid", &buffer, buffer.count - 1)
        let namespace =
            count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        gethostname(&buffer, buffer.count - 1)
        let hostname = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // A name, not a secret.
        let hash = StableHash.fnv1a((read("/proc/sys/kernel/random/boot_id") + "|" + namespace + "|" + hostname).utf8)
        return String(hash, radix: 36)
    }()

    /// The temporary name for a file called `base` written by process `pid` on this host.
    static func temporaryName(for base: String, pid: pid_t, host: String = hostTag) -> String {
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        return ".\(base).tmp-\(pid)-\(host)-\(random)"
    }

    /// The writer of `name` if it is a temporary name made by `temporaryName`.
    public static func owner(ofTemporary name: String) -> Writer? {
        guard name.hasPrefix("."), let marker = name.ranges(of: ".tmp-").last else { return nil }
        let parts = name[marker.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[1].isEmpty, !parts[2].isEmpty, let pid = pid_t(parts[0]), pid > 0 else {
            return nil
        }
        return Writer(host: String(parts[1]), pid: pid)
    }

    /// Removes the temporary files in `directory` whose writer, on this host, no longer runs
    /// (killed between linking and renaming, or on a file system without `O_TMPFILE`), and
    /// any over an hour old (process ids are reused; other hosts' writers cannot be asked).
    /// Files of live writers, and other hosts' recent files, are kept.
    /// - Returns: the names removed.
    @discardableResult
    public static func removeDeadTemporaries(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var removed: [String] = []
        let now = time(nil)
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            guard let owner = owner(ofTemporary: name), owner != Writer(host: hostTag, pid: getpid()) else { continue }
            let path = directory + "/" + name
            var info = stat()
            let old = stat(path, &info) == 0 && now - info.st_mtim.tv_sec > 3600
            let dead = owner.host == hostTag && kill(owner.pid, 0) != 0 && errno == ESRCH
            if (dead || old) && unlink(path) == 0 { removed.append(name) }
        }
        return removed
    }

    // MARK: Crash tests

    /// A point at which the process stops itself (`SIGSTOP`) when the environment variable
    /// `CARDRENDER_FAILPOINT` names it, as `POINT` or `POINT@TEXT` (only for destinations
    /// whose path contains TEXT), so that a test can kill it exactly there with `SIGKILL` instead of
    /// guessing with sleeps. Unset (always, outside tests) it costs one comparison per write.
    enum Failpoint: String {
        /// Half the bytes written, the file not yet named.
        case midWrite = "stop-mid-write"
        /// The file linked under its temporary name, not yet renamed.
        case beforeRename = "stop-before-rename"

        /// The point set in the environment, and the text destinations must contain.
        static let setting: (point: Failpoint, text: String)? = getenv("CARDRENDER_FAILPOINT").flatMap {
            let text = String(cString: $0)
            let parts = text.split(separator: "@", maxSplits: 1)
            guard let point = parts.first.flatMap({ Failpoint(rawValue: String($0)) }) else { return nil }
            return (point, parts.count == 2 ? String(parts[1]) : "")
        }

        /// Whether `point` is set for writes to `path`.
        static func isSet(_ point: Failpoint, for path: String) -> Bool {
            guard let setting, setting.point == point else { return false }
            return setting.text.isEmpty || path.contains(setting.text)
        }

        /// Whether the process stopped at the failpoint already: it stops once, so that a
        /// test may also let it go on (`SIGCONT`) and watch what it does next.
        private static let reached = Atomic<Bool>(false)

        /// Stops the process here, the first time, when `point` is set for `path`.
        static func reach(_ point: Failpoint, for path: String) {
            if isSet(point, for: path) && !reached.exchange(true, ordering: .relaxed) { raise(SIGSTOP) }
        }
    }
}

/// The text of the current `errno`.
func errnoText() -> String {
    String(cString: strerror(errno))
}
