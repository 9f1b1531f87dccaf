import Benchmark
import BenchmarkSupport
import CardKit
import CardPipeline
import Foundation
import PhotoSources
import RenderCache
import Thumbnails
import VipsKit

/// A scratch cache with one 12 MP photo (3 MB) copied in.
func scratch() -> (cache: ContentStore, photo: String) {
    let directory = NSTemporaryDirectory() + "cardrender-cache-bench-" + UUID().uuidString
    let photo = directory + "/photo.jpg"
    try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try! FileManager.default.copyItem(
        atPath: repository.deletingLastPathComponent().appendingPathComponent(
            "shared/corpus/photos/phone-4032x3024.jpg"
        )
        .path, toPath: photo)
    return (try! ContentStore(directory: directory + "/cache"), photo)
}

let benchmarks: @Sendable () -> Void = {
    Vips.start()
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput],
        timeUnits: .microseconds,
        maxDuration: .seconds(5),
        maxIterations: 5000
    )

    // The hit path of a web thumbnail: digest memo (stat + memo file), entry read and
    // SHA-256 check, metadata decode.
    Benchmark("cache hit: memo + lookup + read of a 200 px PNG") { benchmark in
        let (cache, photo) = scratch()
        let cached = CachedThumbnailer(thumbnailer: Thumbnailer(), cache: cache)
        let thumbnail = try cached.thumbnail(file: photo, width: 200).thumbnail
        precondition(thumbnail.data.count > 10_000)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let result = try cached.thumbnail(file: photo, width: 200)
            let (hit, wasCached) = (result.thumbnail, result.cached)
            precondition(wasCached)
            blackHole(hit)
        }
    }

    // What a miss costs before any rendering: hashing the whole input as read.
    Benchmark("input digest: SHA-256 of a 3 MB photo (no memo)") { benchmark in
        let (_, photo) = scratch()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: photo))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(ContentDigest.of(bytes))
        }
    }
}
