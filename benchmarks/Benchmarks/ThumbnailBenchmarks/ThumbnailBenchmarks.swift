import Benchmark
import BenchmarkSupport
import CardKit
import Foundation
import ImageCore
import PhotoSources
import Thumbnails
import VipsKit

let benchmarks: @Sendable () -> Void = {
    Vips.start()
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .throughput, .peakMemoryResident],
        timeUnits: .milliseconds,
        maxDuration: .seconds(10),
        maxIterations: 200
    )

    // A 12 MP phone JPEG to a 200 px wide thumbnail, the GD service's job, on both paths.
    for engine in RenderEngine.allCases {
        Benchmark("thumbnail \(engine): 12MP JPEG -> 200px PNG") { benchmark in
            let data = corpusPhoto("photos/phone-4032x3024.jpg")
            let thumbnailer = Thumbnailer(engine: engine)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(try thumbnailer.thumbnail(of: data, width: 200))
            }
        }

        Benchmark("thumbnail \(engine): 12MP JPEG -> 200px JPEG q85") { benchmark in
            let data = corpusPhoto("photos/phone-4032x3024.jpg")
            let thumbnailer = Thumbnailer(engine: engine)
            let options = EncodeOptions(format: .jpeg, quality: 85)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(try thumbnailer.thumbnail(of: data, width: 200, options: options))
            }
        }
    }

    // sharp's published workload: 2725x2225 JPEG -> 720x588, Lanczos3, JPEG q80; ops/s.
    Benchmark(
        "sharp workload 2725x2225 -> 720x588 JPEG q80",
        configuration: .init(metrics: [.throughput, .wallClock, .peakMemoryResident], timeUnits: .milliseconds)
    ) { benchmark in
        let data = corpusPhoto("photos/sharp-bench-2725x2225.jpg")
        let options = EncodeOptions(format: .jpeg, quality: 80)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let image = try data.thumbnail(policy: .default, width: 720, height: 588, strict: true)
            blackHole(try image.encoded(options))
        }
    }
}
