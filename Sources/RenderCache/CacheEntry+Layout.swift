import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension CacheEntry {
    /// Where a stored entry's metadata and parts lie in its file, read from the file's
    /// header without reading the parts: for sending a part straight from the file
    /// (sendfile). The payload's digest is **not** checked here; only a file whose digest
    /// was checked before (`ContentCache` on a read) may be sent this way.
    public struct Layout: Sendable, Equatable {
        /// One part: its name, and its bytes' offset and length in the file.
        public struct Part: Sendable, Equatable {
            public let name: String
            public let offset: Int
            public let size: Int
        }

        /// The entry's metadata (small: read with the header).
        public let metadata: Data
        /// The parts, in order.
        public let parts: [Part]

        /// The part called `name`.
        public func part(_ name: String) -> Part? { parts.first { $0.name == name } }
    }

    /// The layout of the entry file open at `descriptor`, `fileSize` bytes long; nil when
    /// its header is not an entry's, or its sizes do not add up to the file's size.
    public static func layout(of descriptor: FileDescriptor, fileSize: Int) -> Layout? {
        func read(_ count: Int, at offset: Int) -> [UInt8]? {
            guard count >= 0, offset >= 0, offset + count <= fileSize else { return nil }
            let bytes = try? [UInt8](unsafeUninitializedCapacity: count) { buffer, initialised in
                initialised = try descriptor.read(
                    fromAbsoluteOffset: Int64(offset), into: UnsafeMutableRawBufferPointer(buffer))
            }
            return bytes?.count == count ? bytes : nil
        }
        let lengthStart = magic.count
        guard let start = read(lengthStart + 4, at: 0), Array(start.prefix(lengthStart)) == magic else { return nil }
        let headerLength =
            Int(start[lengthStart]) | Int(start[lengthStart + 1]) << 8 | Int(start[lengthStart + 2]) << 16
            | Int(start[lengthStart + 3]) << 24
        let headerStart = lengthStart + 4
        guard headerLength > 0, headerLength <= 1 << 20, let headerBytes = read(headerLength, at: headerStart),
            let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)),
            header.metadataSize >= 0, header.metadataSize <= 1 << 20
        else { return nil }
        let payloadStart = headerStart + headerLength
        guard let metadata = read(header.metadataSize, at: payloadStart) else { return nil }
        var offset = payloadStart + header.metadataSize
        var parts: [Layout.Part] = []
        for part in header.parts {
            guard part.size >= 0, part.size <= fileSize - offset else { return nil }
            parts.append(Layout.Part(name: part.name, offset: offset, size: part.size))
            offset += part.size
        }
        guard offset == fileSize else { return nil }
        return Layout(metadata: Data(metadata), parts: parts)
    }
}
