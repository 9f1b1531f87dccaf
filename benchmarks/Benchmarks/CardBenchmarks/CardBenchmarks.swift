import Benchmark
import BenchmarkSupport
import CardKit
import Foundation
import PhotoSources
import Thumbnails
import VipsKit

let benchmarks: @Sendable () -> Void = {
    Vips.start()
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .throughput, .peakMemoryResident],
        timeUnits: .milliseconds,
        maxDuration: .seconds(10),
        maxIterations: 100
    )
    Vips.concurrency = 1
    let catalogue = try! FrameCatalogue(directory: repository.appendingPathComponent("frames").path)
    let cases: [(String, String, CardSpec)] = [
        (
            "12MP JPEG, airmail frame, sepia", "photos/phone-4032x3024.jpg",
            CardSpec(frame: "travel/airmail", effect: ColourEffect(.sepia))
        ),
        ("12MP JPEG, no frame", "photos/phone-4032x3024.jpg", CardSpec()),
        ("1800x1200 JPEG, no frame (enlarged 3 % to cover)", "orientation/Landscape_1.jpg", CardSpec()),
        (
            "1800x1200 JPEG, airmail frame, sepia", "orientation/Landscape_1.jpg",
            CardSpec(frame: "travel/airmail", effect: ColourEffect(.sepia))
        ),
    ]
    for (name, file, spec) in cases {
        for engine in RenderEngine.allCases {
            let renderer = CardRenderer(catalogue: catalogue, settings: .init(engine: engine))
            Benchmark("card \(engine): \(name) (print + sample + small, 1 thread)") { benchmark in
                let photo = corpusPhoto(file)
                _ = try renderer.render(photo: photo, spec: spec, specFile: "bench")  // frame art rendered once
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    blackHole(try renderer.render(photo: photo, spec: spec, specFile: "bench"))
                }
            }
        }
    }
}
