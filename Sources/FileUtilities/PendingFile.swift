#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// A file being written for `AtomicFile`: anonymous (`O_TMPFILE`) when the file system
/// allows, else under a temporary name; closed, and its temporary name removed, on deinit.
struct PendingFile: ~Copyable {
    /// Linux's `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`), which Glibc's Swift module does not
    /// import (a compound macro). `__O_TMPFILE` is 0o20000000 on x86-64 and arm64.
    private static let openTemporary: Int32 = 0o20000000 | O_DIRECTORY

    private let descriptor: Int32
    private let directory: String
    private let base: String
    private let destination: String
    /// The temporary name while the file has one (always, without `O_TMPFILE`).
    private var temporary: String?

    init(beside path: String) throws(AtomicFile.WriteError) {
        destination = path
        let slash = path.lastIndex(of: "/")
        directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let anonymous = open(directory, Self.openTemporary | O_WRONLY | O_CLOEXEC, 0o644)
        if anonymous >= 0 {
            descriptor = anonymous
            temporary = nil
            return
        }
        guard [EOPNOTSUPP, EISDIR, EINVAL].contains(errno) else {
            throw AtomicFile.WriteError.lastError(file: path)
        }
        // No O_TMPFILE here: a named temporary file that carries our pid.
        var attempt = 0
        while true {
            let name = directory + "/" + AtomicFile.temporaryName(for: base, pid: getpid())
            let named = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if named >= 0 {
                descriptor = named
                temporary = name
                return
            }
            attempt += 1
            guard errno == EEXIST && attempt < 8 else { throw AtomicFile.WriteError.lastError(file: path) }
        }
    }

    deinit {
        close(descriptor)
        if let temporary { unlink(temporary) }
    }

    /// Writes all of `bytes`, sets the mode to 0644 and flushes when `durable`.
    func fill(_ bytes: some ContiguousBytes, durable: Bool) throws(AtomicFile.WriteError) {
        var failure: AtomicFile.WriteError?
        bytes.withUnsafeBytes { raw in
            var done = 0
            var stopAt = AtomicFile.Failpoint.isSet(.midWrite, for: destination) ? raw.count / 2 : raw.count
            while done < raw.count {
                if done == stopAt {
                    AtomicFile.Failpoint.reach(.midWrite, for: destination)
                    stopAt = raw.count
                }
                let wrote = Glibc.write(descriptor, raw.baseAddress! + done, stopAt - done)
                if wrote < 0 && errno == EINTR { continue }
                guard wrote > 0 else {
                    failure = AtomicFile.WriteError.lastError(file: destination)
                    return
                }
                done += wrote
            }
        }
        if failure == nil && fchmod(descriptor, 0o644) != 0 {
            failure = AtomicFile.WriteError.lastError(file: destination)
        }
        if failure == nil && durable && fsync(descriptor) != 0 {
            failure = AtomicFile.WriteError.lastError(file: destination)
        }
        if let failure { throw failure }
    }

    /// Gives the file the name `path` only if that name is free.
    /// - Returns: false when `path` exists (nothing is changed).
    consuming func link(to path: String) throws(AtomicFile.WriteError) -> Bool {
        let result: Int32
        if let temporary {
            result = Glibc.link(temporary, path)
        } else {
            result = linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, path, AT_SYMLINK_FOLLOW)
        }
        if result == 0 { return true }
        if errno == EEXIST { return false }
        throw AtomicFile.WriteError.lastError(file: path)
    }

    /// Gives the file the name `path`, replacing what is there.
    consuming func rename(to path: String) throws(AtomicFile.WriteError) {
        if temporary == nil {
            var attempt = 0
            while true {
                let name = directory + "/" + AtomicFile.temporaryName(for: base, pid: getpid())
                if linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0 {
                    temporary = name
                    break
                }
                attempt += 1
                guard errno == EEXIST && attempt < 8 else {
                    throw AtomicFile.WriteError.lastError(file: path)
                }
            }
        }
        AtomicFile.Failpoint.reach(.beforeRename, for: path)
        guard Glibc.rename(temporary!, path) == 0 else { throw AtomicFile.WriteError.lastError(file: path) }
        temporary = nil
    }
}
