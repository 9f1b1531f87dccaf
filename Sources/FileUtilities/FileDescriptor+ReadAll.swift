import SystemPackage

extension FileDescriptor {
    /// Reads from the start of the file to its end (`pread`, so the file offset is not used).
    /// - Parameter limit: read at most this many bytes (a guard against a file that grows).
    /// - Throws: the system's error.
    public func readAll(limit: Int = .max) throws(Errno) -> [UInt8] {
        var bytes: [UInt8] = []
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
