import FileUtilities
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A PDF named on the command line (`preflight`, `impose`), read whole within a size limit,
/// with a sentence saying why it cannot be read.
enum InputPDF {
    /// The largest file read: a postcard is a few MB and a press sheet of them tens; a larger
    /// file is refused before it is read into memory.
    static let maxBytes = 1 << 30

    /// Why a file named on the command line cannot be used: names the file and the cause.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The bytes of the regular file at `path`.
    /// - Throws: `Failure` when it cannot be opened or read, is not a regular file, or is
    ///   over `maxBytes`.
    static func read(_ path: String) throws(Failure) -> [UInt8] {
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec])
        } catch {
            throw Failure(description: "\(path): cannot be opened (\(error))")
        }
        defer { try? descriptor.close() }
        var status = Glibc.stat()
        guard fstat(descriptor.rawValue, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw Failure(description: "\(path): not a regular file")
        }
        guard status.st_size <= maxBytes else {
            throw Failure(description: "\(path): \(status.st_size) bytes, over the \(maxBytes >> 20) MiB read at most")
        }
        do {
            let bytes = try descriptor.readAll(limit: maxBytes + 1)
            guard bytes.count <= maxBytes else {
                throw Failure(description: "\(path): grew past the \(maxBytes >> 20) MiB read at most")
            }
            return bytes
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "\(path): cannot be read (\(error))")
        }
    }
}
