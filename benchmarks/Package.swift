// swift-tools-version: 6.1
import PackageDescription

// The benchmarks live in their own package so the root build stays lean.
let package = Package(
    name: "cardrender-benchmarks",
    dependencies: [
        .package(name: "cardrender", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                .product(name: "ImageCore", package: "cardrender"), .product(name: "VipsKit", package: "cardrender"),
            ],
            path: "Benchmarks/BenchmarkSupport"
        ),
        .executableTarget(
            name: "ThumbnailBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "CardKit", package: "cardrender"),
                .product(name: "PhotoSources", package: "cardrender"),
                .product(name: "Thumbnails", package: "cardrender"),
                .product(name: "ImageCore", package: "cardrender"), .product(name: "VipsKit", package: "cardrender"),
            ],
            path: "Benchmarks/ThumbnailBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "CardBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "CardKit", package: "cardrender"),
                .product(name: "PhotoSources", package: "cardrender"),
                .product(name: "Thumbnails", package: "cardrender"),
                .product(name: "ImageCore", package: "cardrender"), .product(name: "VipsKit", package: "cardrender"),
            ],
            path: "Benchmarks/CardBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "StageBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "FastPath", package: "cardrender"),
                .product(name: "ImageCore", package: "cardrender"), .product(name: "VipsKit", package: "cardrender"),
            ],
            path: "Benchmarks/StageBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "CacheBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "CardKit", package: "cardrender"),
                .product(name: "PhotoSources", package: "cardrender"),
                .product(name: "Thumbnails", package: "cardrender"),
                .product(name: "RenderCache", package: "cardrender"),
                .product(name: "CardPipeline", package: "cardrender"),
                .product(name: "ImageCore", package: "cardrender"), .product(name: "VipsKit", package: "cardrender"),
            ],
            path: "Benchmarks/CacheBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
