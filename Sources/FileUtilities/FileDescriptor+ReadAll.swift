import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

extension FileDescriptor {
    /// Reads from the start of the file to its end (`pread`, so the file offset is not used).
    ///
    /// The bytes go into one buffer the size `fstat` gives (one more byte, to see the end in
    /// the same reads), neither zero-filled first nor copied after. Growing a zeroed array
    /// chunk by chunk was 23 % of a framed one-card process reading its 9 MiB art entry
    /// (perf); with one buffer that process went from 248 to 185 ms (`benchmarks/targets.sh`,
    /// RESULTS.md). A file that grew since is read on in chunks.
    /// - Parameter limit: read at most this many bytes (a guard against a file that grows).
    /// - Throws: the system's error.
    public func readAll(limit: Int = .max) throws(Errno) -> [UInt8] {
        var status = Glibc.stat()
        let size = fstat(rawValue, &status) == 0 ? max(0, Int(status.st_size)) : 0
        let capacity = min(limit, size + 1)
        var failure: Errno?
        var bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            count = 0
            while count < buffer.count {
                do {
                    let got = try read(
                        fromAbsoluteOffset: Int64(count),
                        into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[count...])),
                        retryOnInterrupt: true)
                    if got == 0 { break }
                    count += got
                } catch {
                    failure = error as? Errno ?? .ioError
                    break
                }
            }
        }
        if let failure { throw failure }
        guard bytes.count == capacity else { return bytes }
        // Grown since `fstat` (or it failed): on in chunks up to `limit`.
        var chunk = 1 << 16
        while bytes.count < limit {
            let start = bytes.count
            let want = min(chunk, limit - start)
            bytes.append(contentsOf: repeatElement(0, count: want))
            let got: Int
            do {
                got = try bytes.withUnsafeMutableBytes { raw in
                    try read(
                        fromAbsoluteOffset: Int64(start),
                        into: UnsafeMutableRawBufferPointer(rebasing: raw[start..<(start + want)]),
                        retryOnInterrupt: true)
                }
            } catch let error as Errno {
                throw error
            } catch {
                throw Errno.ioError
            }
            bytes.removeLast(want - got)
            if got == 0 { break }
            chunk = min(chunk * 2, 1 << 24)
        }
        return bytes
    }
}
