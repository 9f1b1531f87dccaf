import Foundation
import ImageCore
import VipsKit

/// The repository root, found from this file (`benchmarks/Benchmarks/BenchmarkSupport/`).
public let repository = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// Reads a file of `../shared/corpus` once, so that benchmarks time the image work, not the disk.
/// - Parameter name: the path under the corpus, e.g. `photos/phone-4032x3024.jpg`.
public func corpusPhoto(_ name: String) -> ImageData {
    let path = repository.deletingLastPathComponent().appendingPathComponent("shared/corpus/" + name).path
    guard let data = try? ImageData(contentsOfFile: path, maxBytes: 64 << 20) else {
        fatalError("benchmark input missing: \(path) (../shared/corpus is needed)")
    }
    return data
}
