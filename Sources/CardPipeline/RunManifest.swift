import FileUtilities
import SystemPackage

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What one shard of a run did, item by item: the record `runs verify` checks and
/// `runs merge` joins.
///
/// A run is one batch cut into `shards` parts (`--shard K/N`), each done by its own process,
/// usually on its own node; every part writes `OUT/runs/RUN/shard-K-of-N.jsonl` into the
/// shared output directory when it ends. The file is JSON Lines: a header, then one line per
/// item that ended (rendered, taken from the cache, or rejected with the reason), sorted by
/// item. Items that did not end (the machine failed, the shard was interrupted) are absent,
/// so a shard run again replaces the manifest with a complete one. Written atomically: a
/// manifest is whole or absent.
public struct RunManifest: Sendable, Equatable {
    /// What made the run.
    public enum Kind: String, Sendable, Codable {
        /// `cardrender render`: postcards.
        case render
        /// `cardrender thumb`: thumbnails.
        case thumb
    }

    /// The first line.
    public struct Header: Sendable, Codable, Equatable {
        /// The manifest format; 1.
        public var manifest: Int = 1
        /// The run's name.
        public var run: String
        /// This shard, 0 ..< `shards`.
        public var shard: Int
        /// How many shards the run has.
        public var shards: Int
        /// The command.
        public var kind: Kind
        /// The program and libvips versions that wrote it.
        public var producer: String
        /// Items in this shard.
        public var items: Int
        /// Wall time of the shard in seconds.
        public var seconds: Double

        public init(run: String, shard: Shard, kind: Kind, producer: String, items: Int, seconds: Double) {
            self.run = run
            self.shard = shard.index
            shards = shard.count
            self.kind = kind
            self.producer = producer
            self.items = items
            self.seconds = seconds
        }
    }

    /// How an item ended.
    public enum Status: String, Sendable, Codable {
        /// Rendered by this shard.
        case rendered
        /// Its outputs came from the cache (rendered earlier, by any node).
        case cached
        /// The input cannot be used (damaged, unsupported, a bad spec): recorded, never retried.
        case rejected
    }

    /// One item.
    public struct Entry: Sendable, Codable, Equatable {
        /// The input's path relative to its input root.
        public var item: String
        public var status: Status
        /// Why it was rejected.
        public var reason: String?
        /// The cache key (nil when the run used no cache).
        public var key: String?
        /// The SHA-256 of every output, by path relative to the output directory.
        public var outputs: [String: String]
        /// The card's full outcome, for `runs merge` (render runs).
        public var card: CardOutcome?
        /// The thumbnail's full outcome, for `runs merge` (thumb runs).
        public var thumbnail: ThumbOutcome?
    }

    public var header: Header
    /// Sorted by item.
    public var entries: [Entry]

    public init(header: Header, entries: [Entry]) {
        self.header = header
        self.entries = entries.sorted { $0.item < $1.item }
    }

    /// The entries of a card batch's outcomes; the ones the machine failed are left out.
    public static func entries(cards: [CardOutcome]) -> [Entry] {
        cards.compactMap { card in
            guard card.temporary != true else { return nil }
            let status: Status = card.error != nil ? .rejected : card.cached == true ? .cached : .rendered
            return Entry(
                item: card.item ?? card.input, status: status, reason: card.error, key: card.key,
                outputs: card.digests ?? [:], card: card)
        }
    }

    /// The entries of a thumbnail batch's outcomes, with output paths made relative to
    /// `directory`; the ones the machine failed are left out.
    public static func entries(thumbnails: [ThumbOutcome], directory: String) -> [Entry] {
        thumbnails.compactMap { thumbnail in
            guard thumbnail.temporary != true else { return nil }
            let status: Status =
                thumbnail.error != nil ? .rejected : thumbnail.cached == true ? .cached : .rendered
            var outputs: [String: String] = [:]
            if let output = thumbnail.output, let digest = thumbnail.digest {
                var relative = FilePath(output)
                outputs[relative.removePrefix(FilePath(directory)) ? relative.string : output] = digest
            }
            return Entry(
                item: thumbnail.item ?? thumbnail.input, status: status, reason: thumbnail.error, key: thumbnail.key,
                outputs: outputs, thumbnail: thumbnail)
        }
    }

    // MARK: Files

    /// Whether `name` can name a run: 1 to 100 letters, digits, `.`, `_` or `-`, not starting with `.`.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 100 && !name.hasPrefix(".")
            && name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || "0123456789._-".unicodeScalars.contains($0))
            }
    }

    /// `OUT/runs/RUN`: where a run's manifests live.
    public static func directory(run: String, output: String) -> String {
        FilePath(output).appending("runs").appending(run).string
    }

    /// `shard-K-of-N.jsonl`.
    public static func fileName(_ shard: Shard) -> String {
        "shard-\(shard.index)-of-\(shard.count).jsonl"
    }

    /// The manifest as JSON Lines.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(header)
        data.append(0x0A)
        for entry in entries {
            data.append(try encoder.encode(entry))
            data.append(0x0A)
        }
        return data
    }

    /// Writes the manifest into `directory` (created if missing) as `shard-K-of-N.jsonl`,
    /// atomically.
    /// - Returns: the file's path.
    @discardableResult
    public func write(into directory: String) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let shard = try Shard(index: header.shard, count: header.shards)
        let path = FilePath(directory).appending(Self.fileName(shard)).string
        try AtomicFile.write(encoded(), to: path)
        return path
    }

    /// Reads the manifest at `path`.
    /// - Throws: `RunManifestError` naming the file and the line that cannot be read.
    public init(reading path: String) throws(RunManifestError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw RunManifestError(file: path, line: nil, problem: "cannot be read")
        }
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: true)
        guard let first = lines.first else { throw RunManifestError(file: path, line: 1, problem: "is empty") }
        let decoder = JSONDecoder()
        do {
            header = try decoder.decode(Header.self, from: Data(first))
        } catch {
            throw RunManifestError(file: path, line: 1, problem: "is not a manifest header (\(error))")
        }
        guard header.manifest == 1 else {
            throw RunManifestError(file: path, line: 1, problem: "has format \(header.manifest); this version reads 1")
        }
        var entries: [Entry] = []
        for (index, line) in lines.dropFirst().enumerated() {
            do {
                entries.append(try decoder.decode(Entry.self, from: Data(line)))
            } catch {
                throw RunManifestError(file: path, line: index + 2, problem: "is not a manifest entry (\(error))")
            }
        }
        self.entries = entries
    }
}
