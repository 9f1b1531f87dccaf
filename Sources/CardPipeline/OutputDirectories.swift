import FileUtilities
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The directories a batch writes into: each is created on first use and swept once of
/// the temporary files that killed writers left there (`AtomicFile.removeDeadTemporaries`),
/// so a batch re-run after a `kill -9` leaves no trace of the one before.
final class OutputDirectories: Sendable {
    private let prepared = Mutex<Set<String>>([])
    private let log: @Sendable (String) -> Void

    init(log: @escaping @Sendable (String) -> Void) {
        self.log = log
    }

    /// Makes sure `directory` exists and was swept.
    /// - Throws: `AtomicFile.WriteError` when it cannot be created.
    func prepare(_ directory: String) throws {
        guard !prepared.withLock({ $0.contains(directory) }) else { return }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw AtomicFile.WriteError(file: directory, reason: "the directory cannot be created (\(error))")
        }
        for name in AtomicFile.removeDeadTemporaries(in: directory) {
            log("cardrender: removed \(directory)/\(name), left by a writer that was killed")
        }
        prepared.withLock { _ = $0.insert(directory) }
    }
}
