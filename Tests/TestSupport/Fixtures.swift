import Foundation
import ImageCore
import Testing
import VipsKit

/// Where test inputs live, and scratch space for outputs.
public enum Fixtures {
    /// The repository root (this file is `Tests/TestSupport/Fixtures.swift`).
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `../shared/corpus`, the real photos (see its README).
    public static let corpus = root.deletingLastPathComponent().appendingPathComponent("shared/corpus")

    /// Whether the corpus is present; tests that need it are skipped with a message otherwise.
    public static let corpusAvailable = FileManager.default.fileExists(
        atPath: corpus.appendingPathComponent("photos/phone-4032x3024.jpg").path)

    /// Message shown when corpus tests are skipped.
    public static let corpusMissing: Testing.Comment = "../shared/corpus is absent: real-photo tests skipped"

    /// A corpus file's path, e.g. `photo("photos/jolla-3264x2448.jpg")`.
    public static func photo(_ relative: String) -> String {
        corpus.appendingPathComponent(relative).path
    }

    /// A new empty scratch directory under the system temporary directory.
    public static func scratchDirectory(_ label: String = #function) throws -> String {
        let safe = label.filter { $0.isLetter || $0.isNumber }
        let path = NSTemporaryDirectory() + "cardrender-tests/\(safe)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Files (not directories) under `directory`, relative paths, sorted.
    public static func files(under directory: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: directory)
        var found: [String] = []
        while let next = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: directory + "/" + next, isDirectory: &isDirectory)
            if exists && !isDirectory.boolValue { found.append(next) }
        }
        return found.sorted()
    }

    /// Decodes an image file (any format) for comparisons.
    public static func load(_ path: String) throws -> VImage {
        try ImageData(contentsOfFile: path, maxBytes: 1 << 30).decode(strict: true)
    }

    /// Decodes encoded bytes for comparisons.
    public static func load(_ data: Data, name: String = "output") throws -> VImage {
        try ImageData(copying: data, name: name).decode(strict: true)
    }
}
